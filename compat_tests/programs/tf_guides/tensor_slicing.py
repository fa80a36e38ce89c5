"""The TensorFlow guide "Introduction to tensor slicing": tf.slice, strided indexing, tf.gather (axis, batch_dims),
tf.gather_nd, tf.scatter_nd, tf.tensor_scatter_nd_update / add / sub / min / max and inserting into a tensor,
each printed as the guide does."""

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    t1 = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
    show(tf.slice(t1, begin=[1], size=[3]))
    show(t1[1:4], t1[-3:], t1[::2])
    t2 = tf.constant([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17, 18, 19]])
    show(t2[:-1, 1:3])
    t3 = tf.constant([[[1, 3, 5, 7], [9, 11, 13, 15]], [[17, 19, 21, 23], [25, 27, 29, 31]]])
    show(tf.slice(t3, begin=[1, 1, 0], size=[1, 1, 2]))
    show(tf.gather(t1, indices=[0, 3, 6]))
    show(t1[::3])
    alphabet = tf.constant(list("abcdefghijklmnopqrstuvwxyz"))
    show(tf.gather(alphabet, indices=[2, 0, 19, 18]))
    t4 = tf.constant([[0, 5], [1, 6], [2, 7], [3, 8], [4, 9]])
    show(tf.gather_nd(t4, indices=[[2], [3], [0]]))
    t5 = tf.constant([[[0, 5], [1, 6]], [[2, 7], [3, 8]], [[4, 9], [5, 10]]])
    show(tf.gather_nd(t5, indices=[[0, 0, 0], [1, 0, 1]]))
    show(tf.gather_nd(t5, indices=[[[0, 0], [0, 1]], [[1, 0], [2, 1]]]))
    show(tf.gather_nd(t5, indices=[[0, 0], [0, 1], [1, 0], [2, 1]]))
    params = tf.constant([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    show(tf.gather(params, [[1, 0], [0, 0]], axis=1))
    show(tf.gather(tf.constant([[1, 2, 3], [4, 5, 6]]), [[2, 0], [1, 1]], axis=1, batch_dims=1))

    t6 = tf.constant([10])
    indices = tf.constant([[1], [3], [5], [7], [9]])
    data = tf.constant([2, 4, 6, 8, 10])
    show(tf.scatter_nd(indices=indices, updates=data, shape=t6))
    show(tf.scatter_nd(indices=[[0, 1], [2, 0]], updates=[5.0, 6.0], shape=[3, 2]))
    show(tf.scatter_nd(indices=[[1], [1]], updates=[[1, 2], [3, 4]], shape=[3, 2]))

    new_indices = tf.constant([[0, 2], [2, 1], [3, 3]])
    t8 = tf.gather_nd(t2, indices=new_indices)
    show(t8)
    t9 = tf.scatter_nd(indices=new_indices, updates=t8, shape=tf.constant([4, 5]))
    show(t9)
    t10 = tf.constant([[1, 1, 1], [1, 1, 1], [1, 1, 1]])
    show(tf.tensor_scatter_nd_add(t10, indices=[[0, 2], [1, 1], [2, 0]], updates=[6, 5, 4]))
    show(tf.tensor_scatter_nd_sub(t10, indices=[[0, 2], [1, 1]], updates=[3, 3]))
    show(tf.tensor_scatter_nd_min(t10, indices=[[0, 2], [1, 1]], updates=[-1, 7]))
    show(tf.tensor_scatter_nd_max(t10, indices=[[0, 2], [1, 1]], updates=[-1, 7]))
    t11 = tf.constant([[2, 7, 0], [9, 0, 1], [0, 3, 8]])
    show(tf.tensor_scatter_nd_update(t11, indices=[[0, 2], [1, 1], [2, 0]], updates=[5, 5, 5]))
    t12 = tf.tensor_scatter_nd_update(t11, indices=[[1]], updates=[[10, 11, 12]])
    show(t12)
    t13 = tf.tensor_scatter_nd_add(tf.zeros([2, 3]), indices=[[0], [0], [1]],
                                   updates=[[1.0, 2.0, 3.0], [0.5, 0.5, 0.5], [4.0, 5.0, 6.0]])
    show(t13)
    try:
        tf.gather(t1, [9])
    except tf.errors.InvalidArgumentError as error:
        show(type(error).__name__)

    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather_nd(x, [[0, 1], [1, 0], [0, 1]]) * tf.constant([1.0, 2.0, 3.0]))
    show(tape.gradient(y, x))
    return out


if __name__ == "__main__":
    print("\n".join(main()))
