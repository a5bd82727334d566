"""A Hugging Face ``tokenizer.json`` for o200k_harmony, so servers that need one (vLLM) can load our models.

tiktoken's o200k_base ranks become a byte-level BPE (merges rebuilt from the ranks), and all
1090 special tokens (199998..201087, reserved ones included) are added in id order, so each
gets the id tiktoken gives it. Converters that add only the named specials number them one
after another and shift ``<|start|>`` and the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from harmony_viz.extras import require
from harmony_viz.tokens import PAT_STR, RETURN, SPECIAL_TOKENS, encoding

# A cache key: change it when the output of build_tokenizer_json changes.
_FORMAT = "1"


def _byte_chars() -> dict[int, str]:
    """GPT-2's byte -> printable character map, which byte-level BPE vocabularies are written in."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = list(keep)
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


def merge_of(ranks: dict[bytes, int], token: bytes, rank: int) -> tuple[bytes, bytes]:
    """The pair whose merge makes ``token``: BPE over its bytes with only lower ranks, down to two parts."""
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best, at = rank, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < best:
                best, at = r, i
        if at < 0:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    if len(parts) != 2:
        raise ValueError(f"token {token!r} (rank {rank}) is not a merge of two lower-ranked tokens")
    return parts[0], parts[1]


def build_tokenizer_json() -> str:
    """The tokenizer as the JSON text of a ``tokenizers.Tokenizer`` (about 25 s of Python the first time)."""
    tk = require("tokenizers")
    enc = encoding()
    ranks: dict[bytes, int] = enc._mergeable_ranks  # noqa: SLF001 - the ranks are the definition we convert
    to_chars = _byte_chars()

    def spell(b: bytes) -> str:
        return "".join(to_chars[x] for x in b)

    vocab = {spell(tok): rank for tok, rank in ranks.items()}
    merges = [(spell(a), spell(b)) for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1]) if len(tok) > 1 for a, b in [merge_of(ranks, tok, rank)]]
    # ignore_merges: a pre-token that is a whole vocabulary entry is that token, as in tiktoken.
    model = tk.models.BPE(vocab=vocab, merges=merges, ignore_merges=True, fuse_unk=False, byte_fallback=False)
    tok = tk.Tokenizer(model)
    tok.pre_tokenizer = tk.pre_tokenizers.Sequence(
        [
            tk.pre_tokenizers.Split(tk.Regex(PAT_STR), behavior="isolated", invert=False),
            tk.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = tk.decoders.ByteLevel()
    # In id order, so the n-th added token gets id 199998 + n, which is tiktoken's id.
    tok.add_special_tokens([tk.AddedToken(t.literal, special=True, normalized=False) for t in SPECIAL_TOKENS])
    return tok.to_str()


def _cache_path() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "harmony_viz"
    ranks = b"".join(sorted(encoding()._mergeable_ranks))  # noqa: SLF001
    key = hashlib.sha256(_FORMAT.encode() + ranks).hexdigest()[:16]
    return root / f"o200k_harmony-tokenizer-{key}.json"


def tokenizer_json() -> str:
    """:func:`build_tokenizer_json`, kept in the user's cache folder after the first build."""
    path = _cache_path()
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    text = build_tokenizer_json()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)  # atomic, so a parallel test worker never reads half a file
    except OSError:
        pass  # a read-only home only costs the rebuild next time
    return text


def write_tokenizer(folder: str | os.PathLike[str]) -> None:
    """Write ``tokenizer.json`` and ``tokenizer_config.json`` (transformers' fast tokenizer) to ``folder``."""
    transformers = require("transformers")
    tk = require("tokenizers")
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk.Tokenizer.from_str(tokenizer_json()),
        eos_token="<|return|>",
        pad_token="<|endoftext|>",
        model_max_length=131072,
    )
    if fast.convert_tokens_to_ids("<|return|>") != RETURN:  # cheap guard against a shifted table
        raise RuntimeError("the converted tokenizer numbers special tokens differently from tiktoken")
    fast.save_pretrained(str(folder))
    # transformers 5 writes its own class name, which older releases (vLLM pins its own) lack;
    # PreTrainedTokenizerFast loads a tokenizer.json in every release.
    config = Path(folder) / "tokenizer_config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["tokenizer_class"] = "PreTrainedTokenizerFast"
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
