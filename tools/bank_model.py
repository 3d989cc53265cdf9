"""The bank recorder's rule (kernels/runtime/bank_recorder.h) for the layout searches: the shared
words one group of lanes served together touches in one instruction (the warp for 4-byte
words, each half-warp for 8-byte ones; `lanes_per_group`), and what that costs."""


def lanes_per_group(word):
    return 32 * 4 // word


def element_words(offset_bytes, word):
    """The 4-byte words an access of `word` bytes at byte offset `offset_bytes` touches."""
    return range(offset_bytes // 4, (offset_bytes + word - 1) // 4 + 1)


def wavefronts(words):
    """(wavefronts, ideal) of one instruction of a group: the most distinct words in one of
    the 32 banks, and one per 128 distinct bytes."""
    if not words:
        return 0, 0
    per_bank = [0] * 32
    for w in words:
        per_bank[w % 32] += 1
    return max(per_bank), (len(words) + 31) // 32
