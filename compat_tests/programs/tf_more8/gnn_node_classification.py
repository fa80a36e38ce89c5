"""The Keras "Node classification with Graph Neural Networks" example, shrunk, on a synthetic citation graph: node
features and an edge list as constants, a GraphConvLayer that prepares messages with a feed-forward block, gathers
neighbour representations with tf.gather, aggregates them with tf.math.unsorted_segment_mean / sum / max (one
layer each), updates node states by concatenation (or a sum), tf.nn.l2_normalize, normalized edge
weights, and a GNNNodeClassifier model subclass whose call looks node embeddings up by index; fit on node ids
evaluate and predict."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

NODES, FEATURES, CLASSES = 24, 6, 3


def create_ffn(hidden_units, dropout_rate, name=None):
    fnn_layers = []
    for units in hidden_units:
        fnn_layers.append(layers.BatchNormalization())
        fnn_layers.append(layers.Dropout(dropout_rate))
        fnn_layers.append(layers.Dense(units, activation=tf.nn.gelu))
    return keras.Sequential(fnn_layers, name=name)


class GraphConvLayer(layers.Layer):
    def __init__(self, hidden_units, dropout_rate=0.2, aggregation_type="mean", combination_type="concat",
                 normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.aggregation_type = aggregation_type
        self.combination_type = combination_type
        self.normalize = normalize
        self.ffn_prepare = create_ffn(hidden_units, dropout_rate)
        self.update_fn = create_ffn(hidden_units, dropout_rate)

    def prepare(self, node_repesentations, weights=None):
        messages = self.ffn_prepare(node_repesentations)
        if weights is not None:
            messages = messages * tf.expand_dims(weights, -1)
        return messages

    def aggregate(self, node_indices, neighbour_messages, node_repesentations):
        num_nodes = node_repesentations.shape[0]
        if self.aggregation_type == "sum":
            return tf.math.unsorted_segment_sum(neighbour_messages, node_indices, num_segments=num_nodes)
        if self.aggregation_type == "mean":
            return tf.math.unsorted_segment_mean(neighbour_messages, node_indices, num_segments=num_nodes)
        if self.aggregation_type == "max":
            return tf.math.unsorted_segment_max(neighbour_messages, node_indices, num_segments=num_nodes)
        raise ValueError(f"Invalid aggregation type: {self.aggregation_type}.")

    def update(self, node_repesentations, aggregated_messages):
        if self.combination_type == "add":
            h = node_repesentations + aggregated_messages
        else:
            h = tf.concat([node_repesentations, aggregated_messages], axis=1)
        node_embeddings = self.update_fn(h)
        if self.normalize:
            node_embeddings = tf.nn.l2_normalize(node_embeddings, axis=-1)
        return node_embeddings

    def call(self, inputs):
        node_repesentations, edges, edge_weights = inputs
        node_indices, neighbour_indices = edges[0], edges[1]
        neighbour_repesentations = tf.gather(node_repesentations, neighbour_indices)
        neighbour_messages = self.prepare(neighbour_repesentations, edge_weights)
        aggregated_messages = self.aggregate(node_indices, neighbour_messages, node_repesentations)
        return self.update(node_repesentations, aggregated_messages)


class GNNNodeClassifier(keras.Model):
    def __init__(self, graph_info, num_classes, hidden_units, aggregation_types, combination_type="concat",
                 dropout_rate=0.2, normalize=True, **kwargs):
        super().__init__(**kwargs)
        node_features, edges, edge_weights = graph_info
        self.node_features = node_features
        self.edges = edges
        self.edge_weights = edge_weights
        if self.edge_weights is None:
            self.edge_weights = tf.ones(shape=edges.shape[1])
        self.edge_weights = self.edge_weights / tf.math.reduce_sum(self.edge_weights)
        self.preprocess = create_ffn(hidden_units, dropout_rate, name="preprocess")
        self.convs = [GraphConvLayer(hidden_units, dropout_rate, aggregation, combination_type, normalize,
                                     name=f"graph_conv{i + 1}") for i, aggregation in enumerate(aggregation_types)]
        self.postprocess = create_ffn(hidden_units, dropout_rate, name="postprocess")
        self.compute_logits = layers.Dense(units=num_classes, name="logits")

    def call(self, input_node_indices):
        x = self.preprocess(self.node_features)
        for conv in self.convs:
            x = conv((x, self.edges, self.edge_weights)) + x
        x = self.postprocess(x)
        node_embeddings = tf.gather(x, input_node_indices)
        return self.compute_logits(node_embeddings)


def make_graph(rng):
    labels = np.arange(NODES) % CLASSES
    features = (rng.normal(size=(NODES, FEATURES)) * 0.5 + labels[:, None] * 0.4).astype(np.float32)
    targets, sources = [], []
    for node in range(NODES):  # mostly same-class neighbours, a few random ones
        for other in rng.choice(np.flatnonzero(labels == labels[node]), 2, replace=False):
            targets.append(node), sources.append(int(other))
        targets.append(node), sources.append(int(rng.integers(0, NODES)))
    edges = np.array([targets, sources], dtype=np.int64)
    return features, edges, labels


def run(graph_info, labels, aggregation_types, combination_type):
    model = GNNNodeClassifier(graph_info, CLASSES, [8], aggregation_types, combination_type, dropout_rate=0.1)
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")])
    node_ids = np.arange(NODES)
    history = model.fit(node_ids[:18], labels[:18], epochs=2, batch_size=6, shuffle=False, verbose=0)
    values = history.history["loss"] + history.history["acc"]
    values += model.evaluate(node_ids[18:], labels[18:], verbose=0)
    values += [float(v) for v in model.predict(np.array([0, 5, 19]), verbose=0).ravel()]
    values += [float(model.count_params()), len(model.trainable_weights)]
    return values


def main():
    keras.utils.set_random_seed(61)
    features, edges, labels = make_graph(np.random.default_rng(61))
    weights = tf.ones(shape=edges.shape[1])
    graph_info = (tf.constant(features), tf.constant(edges), weights)
    values = [float(v) for v in tf.math.unsorted_segment_max(features[:8, 0], edges[0][:8], 6).numpy()]
    values += [float(v) for v in tf.math.unsorted_segment_mean(features[:4], [0, 2, 2, 0], 3).numpy().ravel()]
    values += run(graph_info, labels, ["mean", "max"], "concat")
    return values


if __name__ == "__main__":
    print(main())
