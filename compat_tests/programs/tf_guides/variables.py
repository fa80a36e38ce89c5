"""The TensorFlow guide "Introduction to Variables": creating variables of several dtypes, their shape/dtype/numpy,
operating on them as tensors, assign/assign_add/assign_sub (and a failing assign of the wrong shape), copies made by
tf.Variable(variable), names and trainable, and variables placed with tf.device, each printed as the guide does."""

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    my_tensor = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    my_variable = tf.Variable(my_tensor)
    bool_variable = tf.Variable([False, False, False, True])
    complex_variable = tf.Variable([5 + 4j, 6 + 1j])
    show(repr(bool_variable))
    show(repr(complex_variable))
    show("Shape: ", my_variable.shape)
    show("DType: ", my_variable.dtype)
    show("As NumPy: ", my_variable.numpy())
    show("A variable:", my_variable)
    show("\nViewed as a tensor:", tf.convert_to_tensor(my_variable))
    show("\nIndex of highest value:", tf.math.argmax(my_variable))
    show("\nCopying and reshaping: ", tf.reshape(my_variable, [1, 4]))

    a = tf.Variable([2.0, 3.0])
    a.assign([1, 2])
    show(repr(a))
    try:
        a.assign([1.0, 2.0, 3.0])
    except Exception as e:
        show(f"{type(e).__name__}: {e}")

    a = tf.Variable([2.0, 3.0])
    b = tf.Variable(a)
    a.assign([5, 6])
    show(a.numpy())
    show(b.numpy())
    show(a.assign_add([2, 3]).numpy())
    show(a.assign_sub([7, 9]).numpy())
    show(repr(a.assign_add([1, 1])))

    a = tf.Variable(my_tensor, name="Mark")
    b = tf.Variable(my_tensor + 1, name="Mark")
    show(a == b)
    show(a.name, b.name, my_variable.name, repr(a))
    step_counter = tf.Variable(1, trainable=False)
    show(step_counter.trainable, my_variable.trainable, repr(step_counter), step_counter.dtype)

    with tf.device("CPU:0"):
        a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        c = tf.matmul(a, b)
    show(c)
    with tf.device("CPU:0"):
        a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tf.Variable([[1.0, 2.0, 3.0]])
    with tf.device("CPU:0"):
        k = a * b
    show(k)
    show(a + 1, a * 2.0, -a, a[0, 1:], a.shape.as_list(), a.get_shape())
    return out


if __name__ == "__main__":
    print("\n".join(main()))
