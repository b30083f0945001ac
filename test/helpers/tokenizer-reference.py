"""Reference tokenizers for test/core/tokenizers.test.ts, made with the Python `tokenizers` and `sentencepiece`
packages (scripts/install.sh puts them in .venv).

Trains small tokenizers of each kind Lectern runs on generated multilingual text, writes each as
tokenizer.json into the folder given as argv[1], and prints one JSON object on stdout:
{"tokenizers": {name: path}, "texts": [text, ...], "ids": {name: [[id, ...] per text]}}: the ids the Rust
implementation gives for every text (special tokens added, no truncation, no padding).

`minilm-unigram` (argv[2], MiniLM's tokenizer.json, when given) is minilm_unigram.py's.
"""

import base64
import json
import os
import random
import sys
import unicodedata

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2
from minilm_unigram import minilm_unigram
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

OUT = sys.argv[1]
MINILM = sys.argv[2] if len(sys.argv) > 2 else None
rng = random.Random(20240607)

WORDS = {
    "en": "the quick brown fox jumps over lazy dogs while invoices must be paid within thirty days of receipt "
    "photosynthesis turns light into sugar volcanoes erupt molten rock taxes are filed every year "
    "don't we'll they're it's I'm you've she'd".split(),
    "de": "Die Straße führt über den Fluss zur Bäckerei größer Übung Mädchen Fußgänger schön "
    "Kraftfahrzeughaftpflichtversicherung Äpfel Öl".split(),
    "fr": "L'été dernier nous étions à la plage où les enfants jouaient c'est déjà naïve façade "
    "cœur œuvre garçon hôpital".split(),
    "zh": ["东京是日本的首都", "机器学习", "自然语言处理", "我们研究", "中文字符", "你好世界", "北京大学"],
    "ar": ["مرحبا", "بالعالم", "اللغة", "العربية", "جميلة", "كِتَابٌ", "مُحَمَّد", "٣٤٥"],
    "emoji": ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "❤️", "✨", "🤖", "☃", "∑", "≥", "§3.2(a)", "—"],
    "num": ["1,234.56", "2024", "3.14159", "42", "100%", "$19.99", "12:30", "No.7"],
}
ODD_SPACE = [" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2009", "\u200b", "   ", " \n ", "\u2028"]


SYLLABLES = {
    "en": "th er on an re he in ed nd ha at en es of or nt ea ti to it st io le is ou ar as de rt ve".split(),
    "de": "sch ung ei ie ch ß ä ö ü en er st ge be keit lich".split(),
    "fr": "é è ê à ç ou eau ai oi qu tion ment".split(),
    "zh": list("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年"),
    "ar": list("ابتثجحخدذرزسشصضطظعغفقكلمنهوي") + ["َ", "ِ", "ُ"],
    "emoji": ["😀", "🎉", "🏽", "‍", "️", "🌍"],
    "num": list("0123456789.,"),
}


def coined(lang):
    """A word of the language's syllables that the list above does not have: new pieces for the trainers."""
    return "".join(rng.choice(SYLLABLES[lang]) for _ in range(rng.randint(1, 5)))


def sentence(langs, n):
    words = []
    for _ in range(n):
        lang = rng.choice(langs)
        words.append(coined(lang) if rng.random() < 0.3 else rng.choice(WORDS[lang]))
    out = words[0]
    for w in words[1:]:
        out += (rng.choice(ODD_SPACE) if rng.random() < 0.15 else " ") + w
    return out


ALL = list(WORDS)
corpus = [sentence(ALL, rng.randint(3, 25)) for _ in range(3000)]
latin_only = [sentence(["en", "de", "fr", "num"], rng.randint(3, 25)) for _ in range(2000)]

# Code points from the blocks where normalisers differ: controls, Latin with marks, combining marks, Greek,
# Cyrillic, Arabic, Devanagari, Hangul jamo and syllables, CJK, compatibility forms, full width, emoji.
BLOCKS = [(0x00, 0x7F), (0x80, 0x24F), (0x300, 0x36F), (0x370, 0x4FF), (0x600, 0x6FF), (0x900, 0x97F),
          (0x1100, 0x11FF), (0xAC00, 0xAC40), (0x2000, 0x206F), (0x2100, 0x24FF), (0x3000, 0x30FF),
          (0x4E00, 0x4E80), (0xF900, 0xFB4F), (0xFE00, 0xFE0F), (0xFF00, 0xFFEF), (0x1F300, 0x1F64F)]


def settled(c):
    """Assigned since Unicode 3.2 (or an emoji of Unicode 6): the crate's punctuation table predates Unicode 10,
    so characters assigned later (U+061D, 2021) are punctuation to JavaScript and not to it."""
    return unicodedata.ucd_3_2_0.category(c) != "Cn" or 0x1F300 <= ord(c) <= 0x1F64F


def scramble(n):
    out = ""
    while len(out) < n:
        c = chr(rng.randint(*rng.choice(BLOCKS)))
        if settled(c):
            out += c
    return out


texts = [sentence(ALL, rng.randint(1, 30)) for _ in range(260)]
texts += [scramble(rng.randint(1, 40)) for _ in range(120)]
texts += [
    "",
    " ",
    "   leading and trailing   ",
    "Hello, world!",
    "HELLO World MiXeD CaSe",
    "tab\there\nnewline\r\n  multiple   spaces\u00a0nbsp\u200bzwsp",
    "\u0085next line\ufeffbom\u2028line sep\u2029para",
    "Café déjà vu — naïve façade of the Ångström résumé.",
    "e\u0301 a\u0300 combining marks, precomposed é à",
    "ﬁ ﬂ ligatures, ＦＵＬＬ ｗｉｄｔｈ １２３, ① ㈱ ㎏ ™ ½",
    "한국어 텍스트 한글 자모 한",
    "日本語のテキスト、カタカナとひらがな。ｶﾀｶﾅ",
    "Ελληνικά ΟΔΥΣΣΕΥΣ ς σ Σ, Русский текст, İstanbul ß ẞ",
    "👨‍👩‍👧‍👦 family, 👍🏽 thumbs, 🇫🇷🇩🇪 flags, ❤️‍🔥 and 1️⃣",
    "don't I'll WE'RE they've she'd it's 'quoted' \"double\"",
    "x" * 150,
    "Pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
    "<s> inside text </s> and <mask> tokens <pad>",
    "a<mask>b  <mask>  c lectern Lectern LECTERN lecterns",
    "numbers 0123456789 ٠١٢٣٤٥٦٧٨٩ ⅷ ²³",
    "\x00control\x07chars\x1b[0m",
    "\ufffd replacement and lone marks \u0301\u0301",
    "www.example.com/path?q=1&x=2 user@example.org #hashtag @mention",
    "مرحبا بالعالم! كيف حالك؟ ١٢٣",
    "    ",
    "\n\n\n",
    "a  b   c    d",
    "▁already▁metaspace ▁",
]


def write(name, tok):
    path = os.path.join(OUT, f"{name}.json")
    tok.save(path)
    return path


def added(tok):
    # RoBERTa's <mask> takes the space before it; a plain (non-special) added word is matched after normalising.
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    tok.add_tokens([AddedToken("lectern", single_word=True, normalized=True)])


def sentencepiece_unigram():
    """An XLM-R-style tokenizer.json: sentencepiece's nmt_nfkc charsmap as a Precompiled normalizer."""
    path = os.path.join(OUT, "spm-corpus.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(t.replace("\n", " ") for t in corpus))
    prefix = os.path.join(OUT, "spm")
    spm.SentencePieceTrainer.train(
        input=path,
        model_prefix=prefix,
        vocab_size=1200,
        hard_vocab_limit=False,
        model_type="unigram",
        normalization_rule_name="nmt_nfkc",
        character_coverage=0.9995,
        minloglevel=2,
        num_threads=1,
    )
    proto = sentencepiece_model_pb2.ModelProto()
    with open(prefix + ".model", "rb") as f:
        proto.ParseFromString(f.read())
    # XLM-R's layout: <s> <pad> </s> <unk> first, then the pieces (ids shifted by one), <mask> last.
    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    vocab += [(p.piece, p.score) for p in proto.pieces[3:]]
    vocab.append(("<mask>", 0.0))
    tok = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    charsmap = proto.normalizer_spec.precompiled_charsmap
    tok.normalizer = normalizers.Sequence(
        [normalizers.Precompiled(charsmap), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    tok.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>"])
    added(tok)
    assert base64.b64decode(json.loads(tok.to_str())["normalizer"]["normalizers"][0]["precompiled_charsmap"])
    return tok


def trained_unigram():
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip(), normalizers.Replace("``", '"')]
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Punctuation(),
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.Metaspace(prepend_scheme="first"),
        ]
    )
    trainer = trainers.UnigramTrainer(
        show_progress=False,
        vocab_size=900, special_tokens=["<pad>", "<unk>", "[CLS]", "[SEP]"], unk_token="<unk>", max_piece_length=12
    )
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    added(tok)
    return tok


def byte_level_bpe():
    """GPT-2 / RoBERTa: byte-level pre-tokenizer, merges, <s> … </s>."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    trainer = trainers.BpeTrainer(
        show_progress=False,
        vocab_size=1500,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    added(tok)
    return tok


def split_regex_bpe():
    """Llama 3's split: a regex with a case-insensitive group, then bytes mapped to characters."""
    pattern = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+"
    )
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        show_progress=False,
        vocab_size=1400, special_tokens=["<|begin|>", "<|end|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="<|begin|> $A", special_tokens=[("<|begin|>", 0)]),
        ]
    )
    return tok


def byte_fallback_bpe():
    """Llama 2 / Mistral: ▁ for spaces, merges over characters, bytes for what the vocabulary lacks."""
    base = Tokenizer(models.BPE())
    base.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first", split=False)
    trainer = trainers.BpeTrainer(show_progress=False, vocab_size=1000, special_tokens=["<unk>", "<s>", "</s>"])
    base.train_from_iterator(latin_only, trainer)
    spec = json.loads(base.to_str())
    vocab = spec["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in spec["model"]["merges"]]
    tok = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", vocab["<s>"]), ("</s>", vocab["</s>"])]
    )
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    return tok


def unk_bpe():
    """Character BPE with a word-end suffix and no byte fallback: unknown characters fuse into one <unk>."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>", fuse_unk=False))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.BpeTrainer(
        show_progress=False, vocab_size=800, special_tokens=["<unk>", "<s>", "</s>"], end_of_word_suffix="</w>"
    )
    tok.train_from_iterator(latin_only, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 1), ("</s>", 2)]
    )
    return tok


def trained_wordpiece():
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordPieceTrainer(
        show_progress=False, vocab_size=900, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    )
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    return tok


def bert_normalizer_nfkc():
    """NFKC and a BertNormalizer in one Sequence over a WordPiece model, Digits contiguous."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=20))
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.BertNormalizer(lowercase=False, strip_accents=True)]
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.BertPreTokenizer(), pre_tokenizers.Digits(individual_digits=False)]
    )
    trainer = trainers.WordPieceTrainer(
        show_progress=False, vocab_size=700, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    )
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return tok


built = {
    "spm-unigram-nmt-nfkc": sentencepiece_unigram(),
    "unigram-trained": trained_unigram(),
    "bpe-byte-level": byte_level_bpe(),
    "bpe-split-regex": split_regex_bpe(),
    "bpe-byte-fallback": byte_fallback_bpe(),
    "bpe-unk-suffix": unk_bpe(),
    "wordpiece-trained": trained_wordpiece(),
    "wordpiece-nfkc-digits": bert_normalizer_nfkc(),
}
if MINILM:
    built["minilm-unigram"] = minilm_unigram(MINILM)

paths, ids = {}, {}
for name, tok in built.items():
    paths[name] = write(name, tok)
    # Read back from the file, as Lectern reads it.
    tok = Tokenizer.from_file(paths[name])
    tok.no_truncation()
    tok.no_padding()
    ids[name] = [tok.encode(t).ids for t in texts]
print(json.dumps({"tokenizers": paths, "texts": texts, "ids": ids}))
