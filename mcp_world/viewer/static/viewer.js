// mcp-world view: an episode in progress gets its new steps as they are logged (the server renders
// and escapes them; this only appends what it sends).
(function () {
  const steps = document.getElementById("steps");
  if (!steps || steps.dataset.live !== "1") return;
  let last = Number(steps.dataset.last);
  const url = "/episodes/" + encodeURIComponent(steps.dataset.episode) + "/steps?after=";
  async function poll() {
    try {
      const r = await fetch(url + last, { credentials: "same-origin" });
      if (r.ok) {
        const data = await r.json();
        if (data.html) steps.insertAdjacentHTML("beforeend", data.html);
        last = data.last;
      }
    } catch (e) { /* the viewer was stopped: try again later */ }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
