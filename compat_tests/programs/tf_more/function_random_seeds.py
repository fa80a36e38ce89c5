"""Stateful random ops inside a tf.function after tf.random.set_seed, as the DCGAN tutorial draws its noise: TF seeds
an op traced into a function graph from the number of graph ops created before it (vfw seeds it as an eager op, a
known difference: see the programs' test)."""

import tensorflow as tf


def main():
    tf.random.set_seed(5)

    @tf.function
    def draw(points):
        return tf.random.normal([tf.shape(points)[0], 3]), tf.random.uniform([2])

    values = []
    for _ in range(2):
        normal, uniform = draw(tf.zeros([2, 1]))
        values += normal.numpy().ravel().tolist() + uniform.numpy().tolist()
    return values + tf.random.normal([2]).numpy().tolist()


if __name__ == "__main__":
    print(main())
