"""argbench's pure-Python tokenizer vs spaCy's own ``spacy.blank("en")``, same run, same texts.

.venv/bin/python scripts/bench_tokenizer.py [--sizes 10000 100000] [--seed 0]

Contexts are seeded synthetic claims (Zipf-distributed vocabulary, abbreviations,
contractions, URLs, numbers, money, percentages, quotes, brackets, emoticons, Unicode,
irregular whitespace). For each size both tokenizers start fresh (a new ``spacy.blank("en")``,
an emptied argbench chunk cache) and tokenise every context once, keeping nothing; times are
CPU seconds (the machine may be shared) and the ratio is argbench/spaCy (< 1: argbench is
faster). spaCy's time is ``nlp.tokenizer(text)`` alone (a Doc, no span extraction), the
strictest baseline; its time including the span list ``spacy_tokenize`` returns is printed too.
Then, untimed and fresh again, every context's character spans are compared.

Last ``rationale_f1`` (contexts given, so every context is tokenised) on synthetic items
(context, 1-3 predicted phrases, 1-3 gold phrases), ``tokenizer="argbench"`` vs
``tokenizer="spacy"`` (``nlp(text)``, as the metric calls it): same values, both times.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time

from summary_line import print_summary

from argbench.signature import Signature

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "no will more about can what up out other into than its some time only new could these two "
    "may first then do any like my now over such our man me even most made after also did many "
    "before must through back years where much your way well down should because each just "
    "those people how too little state good very make world still own see men work long get "
    "here between both life being under never day same another know while last might us great "
    "old year off come since against go came right used take three"
).split()
ABBREVIATIONS = (
    "Dr. Mr. Mrs. Ms. St. Sen. Rep. Gov. Jan. Feb. Aug. Sept. Oct. Nov. Dec. Inc. Corp. Ltd. "
    "Co. vs. etc. e.g. i.e. U.S. U.K. N.Y. L.A. D.C. a.m. p.m. No. approx. Jr. Mt."
).split()
CONTRACTIONS = (
    "can't won't don't doesn't isn't aren't wasn't weren't didn't it's that's there's they're "
    "we're you're I'm I've we've they'll we'll I'd she'd he's who's let's y'all gonna wanna "
    "ain't shouldn't couldn't wouldn't o'clock rock'n'roll"
).split()
UNICODE = (
    "café naïve Zürich São Paulo Москва 北京 東京 résumé coöperate Ελλάδα İstanbul Łódź "
    "Ærøskøbing niño façade 🙂 👍 ©2024 №5 ½ ≥ ±3 °C µg 5km² ﬁnance Ǆ"
).split()
EMOTICONS = ":) :-( ;) :D <3 :/ (: ^_^ o.O".split()
OPEN_CLOSE = [("“", "”"), ('"', '"'), ("'", "'"), ("‘", "’"), ("(", ")"), ("[", "]"), ("«", "»")]
PUNCT = [",", ",", ",", ";", ":", " —", " –", "...", "…", " -"]
END = [".", ".", ".", ".", "!", "?", "?!", '."', ".”", "...", "!!!"]
SPACES = ["  ", "\n", " \n ", "\t", "\u00a0", "\u2009", "\n\n"]


def _vocabulary(rng: random.Random, n: int = 30_000) -> list[str]:
    syllables = "ba be bi bo bu ca co de di fa fe ga go ha he in ka la le li lo ma me mi mo na ne ni no on pa pe po ra re ri ro sa se si so ta te ti to un va ve vi wa ze".split()
    return [
        "".join(rng.choice(syllables) for _ in range(rng.choice((1, 2, 2, 3, 3, 4))))
        for _ in range(n)
    ]


class Generator:
    """Claim-like contexts; everything is drawn from one seeded ``random.Random``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.vocab = WORDS + _vocabulary(self.rng)
        # Zipf-like: rank r has weight 1/r, as in real text (a few very frequent words)
        self.cum = list(_accumulate(1 / (r + 1) for r in range(len(self.vocab))))

    def word(self) -> str:
        r = self.rng
        x = r.random()
        if x < 0.70:
            w = r.choices(self.vocab, cum_weights=self.cum)[0]
            y = r.random()
            if y < 0.08:
                w = w.capitalize()
            elif y < 0.10:
                w = w.upper()
            elif y < 0.13:
                w = w + "-" + r.choices(self.vocab, cum_weights=self.cum)[0]
            elif y < 0.15:
                w = w + r.choice(("'s", "’s", "s'", "n't"))
            return w
        if x < 0.76:
            return r.choice(CONTRACTIONS).replace("'", r.choice("'''’"))
        if x < 0.81:
            return r.choice(ABBREVIATIONS)
        if x < 0.90:
            return self.number()
        if x < 0.94:
            return r.choice(UNICODE)
        if x < 0.96:
            return self.url()
        if x < 0.97:
            return r.choice(EMOTICONS)
        a, b = r.choice(OPEN_CLOSE)
        return a + " ".join(self.word() for _ in range(r.randint(1, 4))) + b

    def number(self) -> str:
        r = self.rng
        k = r.randrange(10)
        if k == 0:
            return f"{r.randint(1, 100)}%"
        if k == 1:
            return f"{r.uniform(0, 100):.1f}%"
        if k == 2:
            return f"{r.choice('$€£')}{r.randint(1, 999):,}.{r.randint(0, 99):02d}"
        if k == 3:
            return f"{r.randint(1, 9_999_999):,}"
        if k == 4:
            return f"{r.randint(1900, 2030)}"
        if k == 5:
            return f"{r.choice(('19', '20'))}{r.randint(0, 9)}0s"
        if k == 6:
            return f"{r.randint(1, 12)}{r.choice(('am', 'pm', 'a.m.', 'p.m.', ':30'))}"
        if k == 7:
            return f"{r.randint(1, 50)}-{r.randint(51, 99)}%"
        if k == 8:
            return f"{r.randint(1, 31)}/{r.randint(1, 12)}/{r.randint(10, 99)}"
        return str(r.randint(0, 100))

    def url(self) -> str:
        r = self.rng
        host = r.choice(("www.", "", "news.")) + r.choice(self.vocab[100:2000])
        url = f"{host}.{r.choice(('com', 'org', 'co.uk', 'de', 'gov'))}"
        if r.random() < 0.6:
            url = r.choice(("https://", "http://")) + url
        if r.random() < 0.7:
            url += "/" + "/".join(r.choice(self.vocab) for _ in range(r.randint(1, 3)))
        if r.random() < 0.3:
            url += f"?id={r.randint(1, 99999)}&ref={r.choice(self.vocab)}"
        if r.random() < 0.1:
            return f"{r.choice(self.vocab)}@{host}.com"
        return url

    def sentence(self) -> str:
        r = self.rng
        out = []
        for i in range(r.randint(5, 30)):
            w = self.word()
            out.append(w[:1].upper() + w[1:] if i == 0 else w)
            if r.random() < 0.08:
                out[-1] += r.choice(PUNCT)
        sep = [r.choice(SPACES) if r.random() < 0.01 else " " for _ in out]
        return "".join(s + w for s, w in zip(sep, out, strict=True)).lstrip(" ") + r.choice(END)

    def context(self) -> str:
        r = self.rng
        text = " ".join(self.sentence() for _ in range(r.choice((1, 1, 2, 3))))
        if r.random() < 0.01:
            text = r.choice(SPACES) + text
        if r.random() < 0.01:
            text += r.choice(SPACES)
        return text

    def phrases(self, context: str) -> list[str]:
        """1-3 word-aligned substrings of the context (rationale-like)."""
        r = self.rng
        words = context.split(" ")
        out = []
        for _ in range(r.randint(1, 3)):
            i = r.randrange(len(words))
            phrase = " ".join(words[i : i + r.randint(1, 8)]).strip()
            if phrase:
                out.append(phrase)
        return out or [context.strip() or context]


def _accumulate(xs):
    total = 0.0
    for x in xs:
        total += x
        yield total


def timed(fn):
    """CPU seconds of one call (the machine may be shared; both sides are measured alike)."""
    gc.collect()
    t = time.process_time()
    value = fn()
    return value, time.process_time() - t


def each(fn, texts):
    """Tokenise every context, keeping nothing (as a metric does)."""
    for text in texts:
        fn(text)


def bench_tokenizer(texts: list[str]) -> bool:
    import spacy

    from argbench import tokenize as tk

    def run_spacy():
        tok = spacy.blank("en").tokenizer  # fresh: an empty cache (construction not timed)
        return timed(lambda: each(tok, texts))[1]

    def run_spacy_spans():  # what argbench.tokenize.spacy_tokenize returns
        tok = spacy.blank("en").tokenizer
        return timed(lambda: each(lambda x: [(t.idx, t.idx + len(t)) for t in tok(x)], texts))[1]

    def run_ours():
        tk._clear_cache()  # fresh: an empty chunk cache (rules are compiled once, untimed)
        return timed(lambda: each(tk.tokenize, texts))[1]

    # one-time costs (lazy imports, first allocations) are not part of either
    warm = ["Dr. Smith said 45% didn't (see https://example.org)."]
    each(spacy.blank("en").tokenizer, warm)
    each(tk.tokenize, warm)
    t_spacy, t_spacy_spans, t_ours = run_spacy(), run_spacy_spans(), run_ours()
    # the check, untimed: both fresh again, every context compared
    tk._clear_cache()
    tok = spacy.blank("en").tokenizer
    differ = n_tokens = 0
    for i, text in enumerate(texts):
        theirs = [(t.idx, t.idx + len(t)) for t in tok(text)]
        n_tokens += len(theirs)
        if tk.tokenize(text) != theirs:
            differ += 1
            if differ <= 5:
                print(f"  DIFFERS (context {i}):", repr(text))
    print(
        f"{len(texts):>7,} contexts ({n_tokens:,} tokens): spaCy tokenizer {t_spacy:6.2f} s "
        f"(with spans {t_spacy_spans:6.2f} s)  argbench {t_ours:6.2f} s  "
        f"ratio argbench/spaCy {t_ours / t_spacy:4.2f}  identical: {len(texts) - differ:,}"
        f"/{len(texts):,}"
    )
    print_summary(f"tokenize {len(texts):,} contexts", "spaCy's tokenizer", t_spacy, t_ours)
    return not differ


def _values(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "signature"}


def bench_rationale(gen: Generator, texts: list[str]) -> bool:
    from argbench import tokenize as tk
    from argbench.scoring.rationale_f1 import rationale_f1

    preds = [gen.phrases(t) for t in texts]
    golds = [gen.phrases(t) for t in texts]
    tk._spacy_nlp.cache_clear()  # a fresh spacy.blank("en") ...
    tk._spacy_nlp()  # ... built before the clock starts
    theirs, t_spacy = timed(lambda: rationale_f1(preds, golds, texts, tokenizer="spacy"))
    tk._clear_cache()
    ours, t_ours = timed(lambda: rationale_f1(preds, golds, texts, tokenizer="argbench"))
    # the values must be the same; the signatures differ exactly in the field naming the
    # tokenizer (comparing the whole results, signature included, could never succeed)
    differ = Signature.parse(ours["signature"]).differences(Signature.parse(theirs["signature"]))
    same = _values(ours) == _values(theirs) and [field for field, *_ in differ] == ["tok"]
    print(
        f"{len(texts):>7,} rationale_f1 items: tokenizer='spacy' {t_spacy:6.2f} s  "
        f"tokenizer='argbench' {t_ours:6.2f} s  ratio {t_ours / t_spacy:4.2f}  same values: {same}"
    )
    print_summary(f"rationale_f1 on {len(texts):,} items", "tokenizer='spacy'", t_spacy, t_ours)
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="CI size: 1,000 contexts")
    args = parser.parse_args()
    if args.small:
        args.sizes = [1_000]
    ok = True
    for n in args.sizes:
        gen = Generator(args.seed)
        texts = [gen.context() for _ in range(n)]
        ok &= bench_tokenizer(texts)
        ok &= bench_rationale(gen, texts)
    if not ok:
        sys.exit("argbench and spaCy disagree")


if __name__ == "__main__":
    main()
