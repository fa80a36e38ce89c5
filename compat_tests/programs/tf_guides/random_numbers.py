"""The TensorFlow guide "Random number generation", its deterministic parts: tf.random.Generator.from_seed with
each algorithm, normal / uniform / truncated_normal / uniform_full_int, reset_from_seed, split into independent
generators, make_seeds feeding the stateless ops, the stateless_* ops (normal, uniform with int ranges,
truncated_normal, categorical, binomial, poisson), tf.random.set_seed with the stateful ops, and a generator used
inside tf.function, each printed as the guide does (non-deterministic states are skipped)."""

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    g1 = tf.random.Generator.from_seed(1)
    show(g1.normal(shape=[2, 3]))
    g2 = tf.random.Generator.from_seed(1, alg="philox")
    show(g2.uniform(shape=[2, 3]), g2.state.dtype, g2.algorithm)
    g1.reset_from_seed(1)
    show(g1.normal(shape=[2, 3]))
    show(g1.uniform([4], minval=0, maxval=10, dtype=tf.int32), g1.uniform([2], dtype=tf.float64))
    show(g1.truncated_normal([4]), g1.uniform_full_int([2], dtype=tf.int64))
    g = tf.random.Generator.from_seed(1)
    new_gs = g.split(3)
    # Returned as numbers (compared with a tolerance): the Box-Muller float32 log/sin of vfw and TF's Eigen can
    # differ in the last bit, which a printed repr would show.
    out.extend(float(new_g.normal([])) for new_g in new_gs)
    out.append(float(g.normal([])))
    g.reset_from_seed(5)
    g.skip(10)
    show(g.normal([2]))

    seeds = g.make_seeds(count=2)
    show(seeds.shape, seeds.dtype)
    show(tf.random.stateless_normal([3], seed=seeds[:, 0]))
    show(tf.random.stateless_normal([3], seed=seeds[:, 1]))
    show(tf.random.stateless_normal(shape=[2, 3], seed=[1, 2]))
    show(tf.random.stateless_uniform([4], seed=[3, 4], minval=0, maxval=100, dtype=tf.int32))
    show(tf.random.stateless_uniform([3], seed=[3, 4], minval=-1.0, maxval=1.0))
    show(tf.random.stateless_truncated_normal([4], seed=[5, 6], stddev=2.0))
    show(tf.random.stateless_categorical(tf.math.log([[0.5, 0.5], [0.1, 0.9]]), 5, seed=[7, 17]))
    show(tf.random.stateless_binomial([4], seed=[1, 2], counts=[10.0, 20.0, 5.0, 1.0], probs=0.5))
    show(tf.random.stateless_poisson([4], seed=[1, 2], lam=[1.0, 5.0, 10.0, 0.5]))
    show(tf.random.experimental.stateless_split([1, 2], num=3))
    show(tf.random.experimental.stateless_fold_in([1, 2], 5))

    tf.random.set_seed(1234)
    show(tf.random.uniform([2]), tf.random.normal([2]))
    tf.random.set_seed(1234)
    show(tf.random.uniform([2]), tf.random.uniform([2], seed=1))

    gen = tf.random.Generator.from_seed(3)

    @tf.function
    def draw():
        return gen.normal([2])
    show(draw(), draw())
    return out


if __name__ == "__main__":
    print("\n".join(main()))
