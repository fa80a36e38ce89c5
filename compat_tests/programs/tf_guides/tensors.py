"""The TensorFlow guide "Introduction to Tensors": ranks, converting to numpy, basic math and operators, shapes and
their properties, indexing, reshaping, tf.cast between dtypes, broadcasting, tf.convert_to_tensor, and the ragged,
string and sparse tensors the guide shows, each printed as the guide prints it."""

import numpy as np
import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    rank_0_tensor = tf.constant(4)
    rank_1_tensor = tf.constant([2.0, 3.0, 4.0])
    rank_2_tensor = tf.constant([[1, 2], [3, 4], [5, 6]], dtype=tf.float16)
    rank_3_tensor = tf.constant([[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
                                 [[10, 11, 12, 13, 14], [15, 16, 17, 18, 19]],
                                 [[20, 21, 22, 23, 24], [25, 26, 27, 28, 29]]])
    show(rank_0_tensor)
    show(rank_1_tensor)
    show(rank_2_tensor)
    show(rank_3_tensor)
    show(repr(np.array(rank_2_tensor)), repr(rank_2_tensor.numpy()))

    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[1, 1], [1, 1]])
    show(tf.add(a, b), "\n")
    show(tf.multiply(a, b), "\n")
    show(tf.matmul(a, b), "\n")
    show(a + b, "\n")
    show(a * b, "\n")
    show(a @ b, "\n")
    c = tf.constant([[4.0, 5.0], [10.0, 1.0]])
    show(tf.reduce_max(c))
    show(tf.math.argmax(c))
    out += [float(v) for v in tf.nn.softmax(c).numpy().ravel()]  # (1-ulp round-off: compared as numbers)
    show(tf.convert_to_tensor([1, 2, 3]))
    show(tf.reduce_max([1, 2, 3]))
    show(tf.reduce_max(np.array([1, 2, 3])))

    rank_4_tensor = tf.zeros([3, 2, 4, 5])
    show("Type of every element:", rank_4_tensor.dtype)
    show("Number of axes:", rank_4_tensor.ndim)
    show("Shape of tensor:", rank_4_tensor.shape)
    show("Elements along axis 0 of tensor:", rank_4_tensor.shape[0])
    show("Elements along the last axis of tensor:", rank_4_tensor.shape[-1])
    show("Total number of elements (3*2*4*5): ", tf.size(rank_4_tensor).numpy())
    show(tf.rank(rank_4_tensor))
    show(tf.shape(rank_4_tensor))
    show(repr(rank_4_tensor.shape), repr(tf.size(rank_4_tensor)))

    show(rank_1_tensor.numpy())
    show("First:", rank_1_tensor[0].numpy())
    show("Second:", rank_1_tensor[1].numpy())
    show("Last:", rank_1_tensor[-1].numpy())
    show("Everything:", rank_1_tensor[:].numpy())
    show("Before 4:", rank_1_tensor[:2].numpy())
    show("Reversed:", rank_1_tensor[::-1].numpy())
    show(rank_2_tensor[1, 1].numpy())
    show("Second row:", rank_2_tensor[1, :].numpy())
    show("Second column:", rank_2_tensor[:, 1].numpy())
    show("Last row:", rank_2_tensor[-1, :].numpy())
    show("First item in last column:", rank_2_tensor[0, -1].numpy())
    show("Skip the first row:")
    show(rank_2_tensor[1:, :].numpy(), "\n")
    show(rank_3_tensor[:, :, 4])

    x = tf.constant([[1], [2], [3]])
    show(x.shape)
    show(x.shape.as_list())
    reshaped = tf.reshape(x, [1, 3])
    show(x.shape)
    show(reshaped.shape)
    show(rank_3_tensor)
    show(tf.reshape(rank_3_tensor, [-1]))
    show(tf.reshape(rank_3_tensor, [3 * 2, 5]), "\n")
    show(tf.reshape(rank_3_tensor, [3, -1]))
    show(tf.reshape(tf.transpose(rank_3_tensor), [-1, 5]))
    try:
        tf.reshape(rank_3_tensor, [7, -1])
    except Exception as e:
        show(type(e).__name__)

    the_f64_tensor = tf.constant([2.2, 3.3, 4.4], dtype=tf.float64)
    the_f16_tensor = tf.cast(the_f64_tensor, dtype=tf.float16)
    the_u8_tensor = tf.cast(the_f16_tensor, dtype=tf.uint8)
    show(the_u8_tensor)
    show(the_f16_tensor)

    x = tf.constant([1, 2, 3])
    y = tf.constant(2)
    z = tf.constant([2, 2, 2])
    show(tf.multiply(x, 2))
    show(x * y)
    show(x * z)
    x = tf.reshape(x, [3, 1])
    y = tf.range(1, 5)
    show(x, "\n")
    show(y, "\n")
    show(tf.multiply(x, y))
    x_stretch = tf.constant([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])
    y_stretch = tf.constant([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]])
    show(x_stretch * y_stretch)
    show(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]))

    ragged_list = [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]
    try:
        tf.constant(ragged_list)
    except Exception as e:
        show(f"{type(e).__name__}: {e}")
    ragged_tensor = tf.ragged.constant(ragged_list)
    show(ragged_tensor)
    show(ragged_tensor.shape)
    show(repr(ragged_tensor))

    scalar_string_tensor = tf.constant("Gray wolf")
    show(scalar_string_tensor)
    tensor_of_strings = tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    show(tensor_of_strings)
    show(tf.constant("🥳👍"))
    show(tf.strings.split(scalar_string_tensor, sep=" "))
    show(tf.strings.split(tensor_of_strings))
    text = tf.constant("1 10 100")
    show(tf.strings.to_number(tf.strings.split(text, " ")))
    unicode_bytes = tf.constant("アヒル 🦆")
    show("\nUnicode bytes:", unicode_bytes)
    show("\nUnicode chars:", tf.strings.unicode_split(unicode_bytes, "UTF-8"))

    sparse_tensor = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    show(sparse_tensor, "\n")
    show(tf.sparse.to_dense(sparse_tensor))
    return out


if __name__ == "__main__":
    print("\n".join(main()))
