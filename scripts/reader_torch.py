"""Development only (issue 31, session 2): the torch steps of scripts/train_reader.py —
`encode` (token states), `train` (the late-interaction head), `score` (scores for `eval`).
Needs torch (a separate venv); never imported by the application."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import numpy as np
import torch

from reader_e5 import Tokenizer, batch, read_model, torch_model
from rag.rerank import blend, normalise
from train_reader import TOP_N, text_key

torch.set_num_threads(2)
LAYERS = (8, 12)  # hidden states kept: after layer 8 and the last
MAX_PASSAGE_TOKENS = 256
MAX_QUERY_TOKENS = 64
PREFIX_TOKENS = {True: 4}  # <s> + "▁" "query" ":" (checked in encode)


# ---------------------------------------------------------------------------- pairs


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [s.strip() for s in parts if 40 <= len(s.strip()) <= 220]


def ict_pairs(dump: dict, seed: int = 0) -> list[dict]:
    """Sentence → the rest of its section (the booklets' own pairs): the sentence is removed from
    the passage 9 times in 10 (inverse cloze), the negatives are the neighbouring sections."""
    rng = random.Random(seed)
    text_of = {c["id"]: c["text"] for q in dump["questions"] for c in q["candidates"]}
    by_collection: dict[str, list[dict]] = {}
    for chunk in dump["chunks"]:
        if chunk["id"] in text_of:
            by_collection.setdefault(chunk["collection"], []).append(chunk)
    pairs = []
    for chunks in by_collection.values():
        for i, chunk in enumerate(chunks):
            passage = text_of[chunk["id"]]
            neighbours = [text_of[c["id"]] for c in chunks[max(0, i - 4) : i] + chunks[i + 1 : i + 5]]
            for sentence in rng.sample(sentences(chunk["text"]), min(2, len(sentences(chunk["text"])))):
                positive = passage.replace(sentence, " ") if rng.random() < 0.9 else passage
                pairs.append({"query": sentence, "positive": positive, "negatives": neighbours})
    return pairs


# ---------------------------------------------------------------------------- encode


def encode(args) -> None:
    dump = json.loads(Path(args.dump).read_text())
    spec = read_model()
    tok, model = Tokenizer(spec["tokenizer"]), torch_model(spec).eval()
    assert len(tok.content("query:")) + 1 == PREFIX_TOKENS[True], tok.content("query:")
    queries = {q["question"] for q in dump["questions"]}
    passages = {c["text"] for q in dump["questions"] for c in q["candidates"]}
    for pair in ict_pairs(dump):
        queries.add(pair["query"])
        passages.add(pair["positive"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for is_query, texts in ((True, sorted(queries)), (False, sorted(passages))):
        _encode_texts(model, tok, texts, is_query, out / ("queries.pt" if is_query else "passages.pt"))


def _encode_texts(model, tok, texts: list[str], is_query: bool, path: Path) -> None:
    cached = torch.load(path) if path.exists() else {}
    todo = [t for t in texts if text_key(t) not in cached]
    start, limit = time.perf_counter(), MAX_QUERY_TOKENS if is_query else MAX_PASSAGE_TOKENS
    todo.sort(key=len)
    for i in range(0, len(todo), 16):
        group = todo[i : i + 16]
        ids = [tok.encode(t, is_query, limit) for t in group]
        x, mask = batch(ids)
        with torch.no_grad():
            states = model(x, mask)
        for row, (text, seq) in enumerate(zip(group, ids)):
            cached[text_key(text)] = {n: states[n][row, : len(seq)].half().clone() for n in LAYERS}
    torch.save(cached, path)
    print(f"{path.name}: {len(todo)} encoded in {time.perf_counter() - start:.1f} s, {len(cached)} cached")


# ---------------------------------------------------------------------------- the head


class Head(torch.nn.Module):
    """Token states of one layer → D dimensions, unit length; MaxSim mean over the question's
    content tokens (the prefix and </s> left out)."""

    def __init__(self, dim_in: int, dim: int, layer: int):
        super().__init__()
        self.layer = layer
        self.proj = torch.nn.Linear(dim_in, dim, bias=False)
        self.log_scale = torch.nn.Parameter(torch.tensor(3.0))
        self.importance = torch.nn.Linear(dim_in, 1)  # each question token's weight (starts equal)
        torch.nn.init.zeros_(self.importance.weight), torch.nn.init.zeros_(self.importance.bias)

    def project(self, states):
        return torch.nn.functional.normalize(self.proj(states), dim=-1)

    def score(self, q, q_mask, p, p_mask):
        """q (B, Tq, H), p (B, N, Tp, H) → (B, N) MaxSim scores."""
        qe, pe = self.project(q), self.project(p)
        sim = torch.einsum("bqd,bntd->bnqt", qe, pe).masked_fill(~p_mask[:, :, None, :], -1e4)
        best = sim.max(-1).values  # (B, N, Tq)
        weight = torch.nn.functional.softplus(self.importance(q).squeeze(-1)) * q_mask.float()  # (B, Tq)
        return (best * weight[:, None, :]).sum(-1) / weight.sum(-1, keepdim=True)


def pca_init(head: Head, states: list[torch.Tensor]) -> None:
    x = torch.cat(states).float()
    x = x - x.mean(0)
    _u, _s, v = torch.linalg.svd(x[torch.randperm(len(x))[:20000]], full_matrices=False)
    head.proj.weight.data = v[: head.proj.out_features].clone()


def padded(seqs: list[torch.Tensor], skip_prefix: int = 0):
    T = max(len(s) for s in seqs)
    out = torch.zeros(len(seqs), T, seqs[0].shape[-1])
    mask = torch.zeros(len(seqs), T, dtype=torch.bool)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = s.float()
        mask[i, skip_prefix : len(s) - (1 if skip_prefix else 0)] = True
    return out, mask


class States:
    """Every cached question and passage of one layer, padded once (rows looked up by text)."""

    def __init__(self, folder: Path, layer: int):
        self.layer = layer
        q = torch.load(folder / "queries.pt")
        p = torch.load(folder / "passages.pt")
        self.q_row = {k: i for i, k in enumerate(q)}
        self.p_row = {k: i for i, k in enumerate(p)}
        self.Q, self.Q_mask = padded([v[layer] for v in q.values()], PREFIX_TOKENS[True])
        self.P, self.P_mask = padded([v[layer] for v in p.values()])
        self.p = p

    def scores(self, head: Head, queries: list[str], groups: list[list[str]]):
        n = max(len(g) for g in groups)
        qi = torch.tensor([self.q_row[text_key(t)] for t in queries])
        pi = torch.tensor([[self.p_row[text_key(t)] for t in g + [g[-1]] * (n - len(g))] for g in groups])
        tq = int(self.Q_mask[qi].any(0).nonzero().max()) + 1
        tp = int(self.P_mask[pi.flatten()].any(0).nonzero().max()) + 1
        q, q_mask = self.Q[qi, :tq], self.Q_mask[qi, :tq]
        p, p_mask = self.P[pi, :tp], self.P_mask[pi, :tp]
        return head.score(q, q_mask, p, p_mask)


# ---------------------------------------------------------------------------- train


def examples(dump: dict, final: bool) -> list[dict]:
    """(query, passages, positives) from the dev questions (held-out quarter excluded unless
    `final`) and the booklets' own sentence → section pairs."""
    rows = []
    for q in dump["questions"]:
        if q["held_out"] and not final:
            continue
        texts = [c["text"] for c in q["candidates"]]
        hits = [c["hit"] for c in q["candidates"]]
        if any(hits) and not all(hits):
            rows.append({"query": q["question"], "passages": texts, "hits": hits, "weight": 1.0})
    for pair in ict_pairs(dump):
        if pair["negatives"]:
            rows.append({"query": pair["query"], "passages": [pair["positive"], *pair["negatives"]],
                         "hits": [True] + [False] * len(pair["negatives"]), "weight": 0.5})
    return rows


def listwise_loss(scores, hits, head: Head, weights):
    logits = scores * head.log_scale.exp()
    all_ = torch.logsumexp(logits, -1)
    pos = torch.logsumexp(logits.masked_fill(~hits, -1e4), -1)
    return ((all_ - pos) * weights).mean()


def _epoch(head, states, rows, optimiser, penalty, batch_size=16):
    random.shuffle(rows)
    total = 0.0
    for i in range(0, len(rows), batch_size):
        group = rows[i : i + batch_size]
        n = max(len(r["passages"]) for r in group)
        scores = states.scores(head, [r["query"] for r in group], [r["passages"] for r in group])
        hits = torch.tensor([r["hits"] + [False] * (n - len(r["hits"])) for r in group])
        valid = torch.tensor([[True] * len(r["hits"]) + [False] * (n - len(r["hits"])) for r in group])
        loss = listwise_loss(scores.masked_fill(~valid, -1e4 / 20), hits, head, torch.tensor([r["weight"] for r in group]))
        optimiser.zero_grad()
        (loss + penalty()).backward()
        optimiser.step()
        total += loss.item() * len(group)
    return total / len(rows)


def train(args) -> None:
    dump = json.loads(Path(args.dump).read_text())
    layer = args.layer
    states = States(Path(args.states), layer)
    torch.manual_seed(0), random.seed(0)
    head = Head(384, args.dim, layer)
    if args.dim == 384:  # identity start: untrained MaxSim, pulled back towards it (args.reg)
        head.proj.weight.data = torch.eye(384)
    else:
        pca_init(head, [v[layer] for v in states.p.values()])
    anchor = head.proj.weight.data.clone()
    print("epoch 0", held_out_figures(head, states, dump))
    rows = [r for r in examples(dump, args.final) if args.pairs or r["weight"] == 1.0]
    optimiser = torch.optim.AdamW(head.parameters(), lr=args.lr, weight_decay=0.0)
    for epoch in range(1, args.epochs + 1):
        loss = _epoch(head, states, rows, optimiser, lambda: args.reg * (head.proj.weight - anchor).pow(2).sum())
        print(f"epoch {epoch} loss {loss:.3f}", held_out_figures(head, states, dump), flush=True)
    torch.save({"state": head.state_dict(), "dim": args.dim, "layer": layer}, args.out)


# ---------------------------------------------------------------------------- measure, score


def blended_order(fusion: list[float], reader: list[float], rule_match: list[bool], weight: float | None = None) -> list[int]:
    """rag.retrieve._rerank's order: rag.rerank.blend (by position, or `weight` on the reader
    at every position), chunks stating a named rule first."""
    if weight is None:
        blended = blend(fusion, reader)
    else:
        blended = [(1 - weight) * f + weight * r for f, r in zip(normalise(fusion), normalise(reader))]
    blended = [b + (1.0 if m else 0.0) for b, m in zip(blended, rule_match)]
    return sorted(range(len(fusion)), key=lambda i: -blended[i])


BLENDS = (None, 0.4, 0.5, 0.6)


def question_scores(head, states, questions):
    with torch.no_grad():
        out = []
        for i in range(0, len(questions), 16):
            group = questions[i : i + 16]
            s = states.scores(head, [q["question"] for q in group], [[c["text"] for c in q["candidates"]] for q in group])
            out += [row[: len(q["candidates"])].tolist() for row, q in zip(s, group)]
        return out


def held_out_figures(head, states, dump, which=True) -> dict:
    """R@1 on the held-out quarter: fused order, reader alone, and per blend R@1 won/lost
    (`ref`: the reference's position-aware blend; a number: the reader's weight everywhere)."""
    qs = [q for q in dump["questions"] if q["held_out"] == which and q["candidates"]]
    fused = alone = 0
    moves = {w: [0, 0, 0] for w in BLENDS}
    for q, s in zip(qs, question_scores(head, states, qs)):
        c = q["candidates"]
        a = c[0]["hit"]
        fused, alone = fused + a, alone + c[int(np.argmax(s))]["hit"]
        for w in BLENDS:
            b = c[blended_order([x["fusion"] for x in c], s, [x["rule_match"] for x in c], w)[0]]["hit"]
            moves[w] = [moves[w][0] + b, moves[w][1] + (b and not a), moves[w][2] + (a and not b)]
    n = len(qs)
    out = {"n": n, "fused": round(fused / n, 3), "alone": round(alone / n, 3)}
    for w, (r1, won, lost) in moves.items():
        out[w or "ref"] = f"{r1 / n:.3f} +{won}-{lost}"
    return out


def score(args) -> None:
    dump = json.loads(Path(args.dump).read_text())
    saved = torch.load(args.head)
    states = States(Path(args.states), saved["layer"])
    head = Head(384, saved["dim"], saved["layer"])
    head.load_state_dict(saved["state"])
    table = {}
    for q, s in zip(dump["questions"], question_scores(head, states, dump["questions"])):
        table[q["question"]] = {text_key(c["text"]): v for c, v in zip(q["candidates"], s)}
    Path(args.out).write_text(json.dumps(table))
    print(f"{len(table)} questions scored → {args.out}")


# ---------------------------------------------------------------------------- latency


def _numpy_encoder(spec: dict):
    """The question's forward pass in numpy (float32), as an ask-time reader would run it."""
    cfg, w = spec["config"], spec["weights"]
    H, NH, eps = cfg["H"], cfg["NH"], cfg["eps"]

    def ln(x, name):
        m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * w[f"{name}.w"] + w[f"{name}.b"]

    def encode(ids):
        x = ln(w["word"][ids] + w["pos"][: len(ids)] + w["type"], "eln")
        for i in range(cfg["NL"]):
            p = f"l{i}"
            q, k, v = (x @ w[f"{p}.{n}.w"].T + w[f"{p}.{n}.b"] for n in ("q", "k", "v"))
            split = lambda t: t.reshape(len(ids), NH, H // NH).transpose(1, 0, 2)  # noqa: E731
            att = split(q) @ split(k).transpose(0, 2, 1) / np.sqrt(H // NH)
            att = np.exp(att - att.max(-1, keepdims=True))
            ctx = (att / att.sum(-1, keepdims=True)) @ split(v)
            x = ln(x + ctx.transpose(1, 0, 2).reshape(len(ids), H) @ w[f"{p}.ao.w"].T + w[f"{p}.ao.b"], f"{p}.aln")
            mid = x @ w[f"{p}.fi.w"].T + w[f"{p}.fi.b"]
            mid = 0.5 * mid * (1 + np.tanh(0.7978845608 * (mid + 0.044715 * mid**3)))
            x = ln(x + mid @ w[f"{p}.fo.w"].T + w[f"{p}.fo.b"], f"{p}.oln")
        return x

    return encode


def latency(args) -> None:
    """p95 of the ask-time work for 20 passages: the question's forward pass (numpy) and
    MaxSim against 20 stored int8 token-state matrices (projected at ingestion)."""
    dump = json.loads(Path(args.dump).read_text())
    spec = read_model()
    tok, encode = Tokenizer(spec["tokenizer"]), _numpy_encoder(spec)
    saved = torch.load(args.head)
    proj = saved["state"]["proj.weight"].numpy()
    importance = (saved["state"]["importance.weight"].numpy()[0], float(saved["state"]["importance.bias"]))
    store = {k: v[12].float().numpy() @ proj.T for k, v in torch.load(Path(args.states) / "passages.pt").items()}
    store = {k: (np.round(v / np.linalg.norm(v, axis=-1, keepdims=True) * 127).astype(np.int8)) for k, v in store.items()}
    times, encoded = [], []
    for q in dump["questions"]:
        ids = tok.encode(q["question"], True, MAX_QUERY_TOKENS)
        start = time.perf_counter()
        x = encode(np.array(ids))[PREFIX_TOKENS[True] : -1]
        encoded.append((time.perf_counter() - start) * 1000)
        weight = np.log1p(np.exp(x @ importance[0] + importance[1]))
        qe = x @ proj.T
        qe /= np.linalg.norm(qe, axis=-1, keepdims=True)
        scores = [float((qe @ (store[text_key(c["text"])].T.astype(np.float32) / 127)).max(-1) @ weight / weight.sum())
                  for c in q["candidates"][:TOP_N]]
        times.append((time.perf_counter() - start) * 1000)
        del scores
    times.sort(), encoded.sort()
    print(f"question's forward pass: median {encoded[len(encoded) // 2]:.1f} ms, p95 {encoded[int(len(encoded) * 0.95)]:.1f} ms")
    print(f"{len(times)} questions: median {times[len(times) // 2]:.1f} ms, p95 {times[int(len(times) * 0.95)]:.1f} ms, "
          f"max {times[-1]:.1f} ms; stored states {sum(v.nbytes for v in store.values()) / 1e6:.1f} MB for {len(store)} passages")
