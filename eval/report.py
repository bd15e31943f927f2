"""The evaluation's figures grouped per set, per language and per kind, printed as markdown
tables (ready for docs/asking.md)."""

from __future__ import annotations

from collections import defaultdict

from eval.metrics import summarise

LEVELS = (("high", "« clairement »"), ("medium", "« probable »"), ("low", "« ne tranchent pas »"))


def _grouped(rows: list[dict], key) -> dict:
    groups = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return dict(sorted(groups.items()))


def build_report(rows: list[dict], mode_rows: dict[str, list[dict]]) -> dict:
    sets = {}
    for name, members in _grouped(rows, lambda r: r["set"]).items():
        sets[name] = {"all": summarise(members)}
        for lang, by_lang in _grouped(members, lambda r: r["lang"]).items():
            sets[name][lang] = summarise(by_lang)
    unanswerable = [r for r in rows if not r["answerable"]]
    return {
        "sets": sets,
        "languages": {lang: summarise(m) for lang, m in _grouped(rows, lambda r: r["lang"]).items()},
        "kinds": {kind: summarise(m) for kind, m in _grouped(rows, lambda r: r["kind"] or "-").items()},
        "modes": {mode: {name: summarise(m) for name, m in _grouped(mrows, lambda r: r["set"]).items()}
                  for mode, mrows in mode_rows.items()},
        "unanswerable": {"n": len(unanswerable), "refused": sum(1 for r in unanswerable if r.get("refused")),
                         "abstained": sum(1 for r in unanswerable if r.get("abstained"))},
    }


def _f(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _levels(summary: dict) -> list[str]:
    cells = []
    for level, _label in LEVELS:
        row = summary["confidence"][level]
        cells.append(f"{row['shown']} ({_f(row['coverage'])}) / {_f(row['precision'])}" if row["shown"] else "0")
    return cells


def _line(name: str, lang: str, s: dict) -> str:
    cells = [name, lang, str(s["answerable"]), _f(s["recall@1"]), _f(s["recall@5"]), _f(s["mrr"]),
             _f(s["first_citation_right"]), f"{_f(s['fact_in_quotes'])} ({s['n_fact']})", _f(s.get("fact_in_lead_quote")),
             *_levels(s), _f(s.get("abstained_answerable")),
             f"{_f(s.get('abstained_unanswerable'))} ({s.get('n_unanswerable', 0)})"]
    return "| " + " | ".join(cells) + " |"


def print_report(report: dict, split: str) -> None:
    labels = " | ".join(f"{label} n (coverage) / precision" for _l, label in LEVELS)
    print(f"\n{split} split — hybrid retrieval + extractive answer (as the ask flow, no LLM)\n")
    print(f"| set | lang | n | R@1 | R@5 | MRR | 1st citation right | fact in quotes (n) | fact in lead quote "
          f"| {labels} | abstained, answerable | abstained, unanswerable (n) |")
    print("|" + "---|" * 14)
    for name, by_lang in report["sets"].items():
        for lang, summary in by_lang.items():
            print(_line(name if lang == "all" else "", lang, summary))
    for lang, summary in report["languages"].items():
        print(_line("every set", lang, summary))
    print("\n| kind | n | R@1 | R@5 | MRR | 1st citation right | fact in quotes (n) |\n|---|---|---|---|---|---|---|")
    for kind, s in report["kinds"].items():
        if s["answerable"]:
            print(f"| {kind} | {s['answerable']} | {_f(s['recall@1'])} | {_f(s['recall@5'])} | {_f(s['mrr'])} "
                  f"| {_f(s['first_citation_right'])} | {_f(s['fact_in_quotes'])} ({s['n_fact']}) |")
    _print_rules(report)
    _print_modes(report)
    u = report["unanswerable"]
    if u["n"]:
        print(f"\nunanswerable questions: {u['refused']} of {u['n']} answered « nothing found », "
              f"{u['abstained']} of {u['n']} « nothing found » or « ne le disent pas »")


def _print_rules(report: dict) -> None:
    ruled = {n: s["all"] for n, s in report["sets"].items() if s["all"].get("n_rule")}
    if ruled:
        print("\n| set (gold by rule) | n | R@1 by rule | R@5 by rule |\n|---|---|---|---|")
        for name, s in ruled.items():
            print(f"| {name} | {s['n_rule']} | {_f(s['rule_recall@1'])} | {_f(s['rule_recall@5'])} |")


def _print_modes(report: dict) -> None:
    if report["modes"]:
        print("\n| retrieval only | set | n | R@1 | R@5 | MRR |\n|---|---|---|---|---|---|")
        for mode, sets in report["modes"].items():
            for name, s in sets.items():
                print(f"| {mode} | {name} | {s['answerable']} | {_f(s['recall@1'])} | {_f(s['recall@5'])} "
                      f"| {_f(s['mrr'])} |")
