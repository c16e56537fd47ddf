// mcp-world view. The server renders and escapes everything shown; this script only
// (1) appends the new steps of an episode in progress as the server sends them, and
// (2) fills in the similarities of a page drawn while the similarity model was still loading.
(function () {
  function fill(el) {
    const id = el.dataset.step;
    async function ask() {
      try {
        const r = await fetch("/similarity/" + encodeURIComponent(id), { credentials: "same-origin" });
        if (r.ok) {
          const data = await r.json();
          if (!data.pending) {
            el.textContent = data.similarity === null || data.similarity === undefined
              ? "similarity: " + (data.error || "none")
              : "similarity " + Number(data.similarity).toFixed(3);
            el.classList.remove("pending");
            return;
          }
        }
      } catch (e) { /* the viewer was stopped: try again later */ }
      setTimeout(ask, 1500);
    }
    el.removeAttribute("data-step");
    ask();
  }

  function fillAll(root) {
    root.querySelectorAll("span.sim[data-step]").forEach(fill);
  }

  fillAll(document);
  const steps = document.getElementById("steps");
  if (!steps || steps.dataset.live !== "1") return;
  let last = Number(steps.dataset.last);
  const url = "/episodes/" + encodeURIComponent(steps.dataset.episode) + "/steps?after=";
  async function poll() {
    try {
      const r = await fetch(url + last, { credentials: "same-origin" });
      if (r.ok) {
        const data = await r.json();
        if (data.html) {
          steps.insertAdjacentHTML("beforeend", data.html);
          fillAll(steps);
        }
        last = data.last;
      }
    } catch (e) { /* the viewer was stopped: try again later */ }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
