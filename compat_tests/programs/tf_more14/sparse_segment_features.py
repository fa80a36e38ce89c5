"""Feature engineering on user-item interactions with tf.sparse and the segment ops, as in recommender and tabular
notebooks: a SparseTensor of (user, item) ratings built unordered and tf.sparse.reorder-ed, sparse.to_dense,
sparse.reduce_sum / reduce_max (keepdims), sparse.sparse_dense_matmul against item embeddings trained with a tape,
sparse.slice / concat / retain / fill_empty_rows / add, tf.math.segment_sum/mean and unsorted_segment_max/min/
sqrt_n/prod over user ids, tf.math.bincount with weights, and tf.sparse.from_dense / to_indicator."""

import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(77)
    users, items = 6, 5
    pairs = sorted({(int(u), int(i)) for u, i in zip(rng.integers(0, users - 1, 14), rng.integers(0, items, 14))})
    order = rng.permutation(len(pairs))
    indices = np.array([pairs[k] for k in order], np.int64)
    ratings = rng.integers(1, 6, len(pairs)).astype(np.float32)
    st = tf.sparse.reorder(tf.sparse.SparseTensor(indices, ratings, dense_shape=[users, items]))
    values = [str(st.indices.numpy()[:4].tolist()), str(st.dense_shape.numpy().tolist())]
    dense = tf.sparse.to_dense(st)
    values += [float(v) for v in dense.numpy().ravel()]
    values += [float(v) for v in tf.sparse.reduce_sum(st, axis=1).numpy()]
    values += [float(v) for v in tf.sparse.reduce_max(st, axis=0, keepdims=True).numpy().ravel()]
    rs = tf.sparse.reduce_sum(st, axis=1, output_is_sparse=True)
    values += [str(rs.indices.numpy().ravel().tolist())]

    filled, empty = tf.sparse.fill_empty_rows(st, -1.0)
    values += [str(empty.numpy().tolist()), int(tf.size(filled.values))]
    top = tf.sparse.slice(st, [0, 0], [3, items])
    bottom = tf.sparse.slice(st, [3, 0], [3, items])
    values += [int(tf.size(top.values)), str(tf.sparse.concat(0, [top, bottom]).dense_shape.numpy().tolist())]
    high = tf.sparse.retain(st, st.values >= 3)
    values += [float(tf.reduce_sum(high.values)), str(high.indices.numpy()[:3].tolist())]
    doubled = tf.sparse.add(st, st)
    values += [float(tf.reduce_sum(tf.sparse.to_dense(doubled)))]
    values += [str(tf.sparse.to_indicator(tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([2, 4, 1],
                                                                  tf.int64), [2, 2]), 5).numpy().tolist())]
    again = tf.sparse.from_dense(dense)
    values += [int(tf.size(again.values)), str(again.values.dtype.name)]

    user_ids = st.indices[:, 0]
    item_ids = st.indices[:, 1]
    values += [float(v) for v in tf.math.segment_sum(st.values, user_ids).numpy()]
    values += [float(v) for v in tf.math.segment_mean(st.values, user_ids).numpy()]
    values += [float(v) for v in tf.math.unsorted_segment_max(st.values, item_ids, items).numpy()]
    values += [float(v) for v in tf.math.unsorted_segment_min(st.values, item_ids, items).numpy()]
    values += [float(v) for v in tf.math.unsorted_segment_sqrt_n(st.values, item_ids, items).numpy()]
    values += [float(v) for v in tf.math.unsorted_segment_prod(st.values, item_ids, items + 1).numpy()]
    values += [float(v) for v in tf.math.bincount(tf.cast(item_ids, tf.int32), weights=st.values,
                                                  minlength=items).numpy()]

    # user profiles = ratings (sparse) @ item embeddings, trained to predict each user's mean rating
    item_emb = tf.Variable(tf.random.stateless_normal([items, 3], seed=[4, 2]) * 0.3)
    head = tf.Variable(tf.zeros([3, 1]))
    target = tf.math.unsorted_segment_mean(st.values, user_ids, users)[:, None]
    norm = tf.sparse.reduce_sum(st, axis=1, keepdims=True) + 1.0
    opt = tf.keras.optimizers.SGD(0.05)
    for _ in range(8):
        with tf.GradientTape() as tape:
            profile = tf.sparse.sparse_dense_matmul(st, item_emb) / norm
            loss = tf.reduce_mean(tf.square(tf.matmul(profile, head) - target))
        grads = tape.gradient(loss, [item_emb, head])
        opt.apply_gradients(zip(grads, [item_emb, head]))
        values.append(float(loss))
    values += [float(v) for v in tf.sparse.sparse_dense_matmul(item_emb, st, adjoint_a=True,
                                                               adjoint_b=True).numpy().ravel()[:6]]
    return values
