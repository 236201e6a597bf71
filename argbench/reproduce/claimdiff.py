"""ClaimDiff (ACL 2023): Table 1, the corpus statistics per split."""

from __future__ import annotations

from argbench.reproduce.report import Context, Row, Section, row


def claimdiff_table1(ctx: Context) -> Section:
    section = Section("ClaimDiff", "Table 1: statistics per split")
    strength, weaken = ctx.load("claimdiff", "S"), ctx.load("claimdiff", "W")
    for split in ("train", "test", "test_doc"):
        s, w = strength[split], weaken[split]
        ours = {
            "pairs": len(s),
            "topics": len(set(s["topic"])),
            "articles": len(set(s["article_a"]) | set(s["article_b"])),
            "% strengthen": round(100 * sum(s["label"]) / len(s), 2),
            "% weaken": round(100 * sum(w["label"]) / len(w), 2),
        }
        for stat, value in ours.items():
            section.rows.append(row(f"{split} / {stat}", value, f"claimdiff/table1/{split}/{stat}"))
        rationales = sum(len(r) for r in s["rationales"]) + sum(len(r) for r in w["rationales"])
        section.rows.append(
            Row(f"{split} / rationales (S + W)", rationales, None, "", "not in the paper's table")
        )
    section.notes.append(
        "test_doc (release: test-full) has 3,168 pairs against the paper's 3,173; topic and article counts "
        "are distinct strings in the release and run slightly above the paper's."
    )
    return section


SECTIONS = [claimdiff_table1]
