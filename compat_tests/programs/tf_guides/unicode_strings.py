"""The TensorFlow guide "Unicode strings": string tensors in several encodings, converting between them
(unicode_decode / unicode_encode / unicode_transcode), batched (ragged) decoding and encoding, character lengths,
substrings by character, unicode_split and unicode_decode_with_offsets, and splitting words at character
boundaries found from the code points, each printed as the guide does."""

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    show(tf.constant("Thanks 😊"))
    show(tf.constant(["You're", "welcome!"]).shape)
    text_utf8 = tf.constant("语言处理")
    text_utf16be = tf.constant("语言处理".encode("UTF-16-BE"))
    text_chars = tf.constant([ord(char) for char in "语言处理"])
    show(text_utf8, text_utf16be, text_chars)
    show(tf.strings.unicode_decode(text_utf8, input_encoding="UTF-8"))
    show(tf.strings.unicode_encode(text_chars, output_encoding="UTF-8"))
    show(tf.strings.unicode_transcode(text_utf8, input_encoding="UTF8", output_encoding="UTF-16-BE"))

    batch_utf8 = [s.encode("UTF-8") for s in ["hÃllo", "What is the weather tomorrow", "Göödnight", "😊"]]
    batch_chars_ragged = tf.strings.unicode_decode(batch_utf8, input_encoding="UTF-8")
    for sentence_chars in batch_chars_ragged.to_list():
        show(sentence_chars)
    batch_chars_padded = batch_chars_ragged.to_tensor(default_value=-1)
    show(batch_chars_padded.numpy())
    show(tf.strings.unicode_encode([[99, 97, 116], [100, 111, 103], [99, 111, 119]], output_encoding="UTF-8"))
    show(tf.strings.unicode_encode(batch_chars_ragged, output_encoding="UTF-8"))
    padded_lengths = tf.reduce_sum(tf.cast(batch_chars_padded >= 0, tf.int64), axis=1)
    show(tf.strings.unicode_encode(tf.RaggedTensor.from_tensor(batch_chars_padded, lengths=padded_lengths),
                                   output_encoding="UTF-8"))

    thanks = "Thanks 😊".encode()
    num_bytes = tf.strings.length(thanks).numpy()
    num_chars = tf.strings.length(thanks, unit="UTF8_CHAR").numpy()
    show(f"{num_bytes} bytes; {num_chars} UTF-8 characters")
    show(tf.strings.substr(thanks, pos=7, len=1).numpy())
    show(tf.strings.substr(thanks, pos=7, len=1, unit="UTF8_CHAR").numpy())
    show(tf.strings.unicode_split(thanks, "UTF-8").numpy())
    codepoints, offsets = tf.strings.unicode_decode_with_offsets("🎈🎉🎊", "UTF-8")
    for codepoint, offset in zip(codepoints.numpy(), offsets.numpy()):
        show(f"At byte offset {offset}: codepoint {codepoint}")
    show(tf.strings.bytes_split(thanks))
    show(tf.strings.unicode_split_with_offsets(["aé", "😊b"], "UTF-8"))

    # Word segmentation without unicode_script: a boundary wherever a character's "is ASCII letter" changes.
    sentence_texts = ["Hello, world.", "世界こんにちは"]
    sentence_char_codepoint = tf.strings.unicode_decode(sentence_texts, "UTF-8")
    sentence_char_kind = tf.ragged.map_flat_values(lambda c: tf.cast(c < 128, tf.int32), sentence_char_codepoint)
    sentence_char_starts_word = tf.concat(
        [tf.fill([sentence_char_kind.nrows(), 1], True),
         tf.not_equal(sentence_char_kind[:, 1:], sentence_char_kind[:, :-1])], axis=1)
    word_starts = tf.squeeze(tf.where(sentence_char_starts_word.values), axis=1)
    show(word_starts)
    word_splits = tf.concat([word_starts, tf.shape(sentence_char_codepoint.values, out_type=tf.int64)], axis=0)
    word_char_codepoint = tf.RaggedTensor.from_row_splits(values=sentence_char_codepoint.values,
                                                          row_splits=word_splits)
    show(word_char_codepoint)
    show(tf.strings.unicode_encode(word_char_codepoint, "UTF-8"))
    show(tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 1], 3, separator="+"))
    show(tf.io.decode_base64(tf.io.encode_base64(thanks)), tf.io.encode_base64(["abc", "ab"], pad=True))
    show(tf.io.decode_raw(tf.constant(["\x01\x02\x03\x04"]), tf.uint16, little_endian=False))
    return out


if __name__ == "__main__":
    print("\n".join(main()))
