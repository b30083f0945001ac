"""MiniLM's WordPiece vocabulary as a Unigram tokenizer.json, id for id: `word` becomes the piece ▁word and
`##ing` the piece ing, so its ids index MiniLM's embedding table and mean there what they meant. An imported
model with a Unigram tokenizer is proven with MiniLM's weights that way (no other model's can be fetched).

Usage: minilm_unigram.py MINILM_TOKENIZER_JSON OUT_TOKENIZER_JSON
"""

import json
import sys

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors


def minilm_unigram(path):
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    by_id = sorted(spec["model"]["vocab"].items(), key=lambda kv: kv[1])
    specials = {t["content"] for t in spec["added_tokens"]}
    vocab, seen = [], set()
    for token, _ in by_id:
        piece = token if token in specials else token[2:] if token.startswith("##") else "▁" + token
        if piece in seen:
            piece = f"<unused-{len(vocab)}>"
        seen.add(piece)
        # Fewer, longer pieces win, as WordPiece's longest match does.
        vocab.append((piece, 0.0 if token in specials else -10.0 - 0.001 * len(vocab) / len(by_id)))
    tok = Tokenizer(models.Unigram(vocab, unk_id=spec["model"]["vocab"]["[UNK]"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.BertPreTokenizer(), pre_tokenizers.Metaspace(prepend_scheme="always")]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 101), ("[SEP]", 102)]
    )
    tok.add_special_tokens(sorted(specials))
    return tok


if __name__ == "__main__":
    minilm_unigram(sys.argv[1]).save(sys.argv[2])
