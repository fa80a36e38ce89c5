"""Classical machine-learning ops (ONNX ``ai.onnx.ml``): LabelEncoder, TreeEnsemble, Binarizer,
ArrayFeatureExtractor.

TreeEnsemble walks every tree for every sample at once, one tree level per step (the loop runs
as many times as the deepest tree is deep).  None of these ops is differentiable.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import DTypeError, IndexOutOfRangeError, OpAttributeError, ShapeError
from vfw.core.ops._common import require, same_as_first
from vfw.core.registry import Attr, TensorInfo, defop

_KEYS = frozenset({dt.string, dt.int64, dt.float32, dt.int32, dt.int16, dt.float64})


def _one_of(op_type, what, candidates):
    given = [(name, value) for name, value in candidates.items() if value is not None]
    if len(given) != 1:
        raise OpAttributeError(f"{op_type}: give exactly one of the {what} attributes "
                               f"({', '.join(candidates)}), got {[name for name, _ in given]}")
    return given[0]


def _label_table(keys_floats, keys_int64s, keys_strings, keys_tensor, values_floats, values_int64s,
                 values_strings, values_tensor, default_float, default_int64, default_string, default_tensor):
    """``(keys, values, default)`` arrays: keys sorted (a repeated key keeps its last value), NaN keys apart."""
    key_name, keys = _one_of("LabelEncoder", "keys_*", {"keys_floats": keys_floats, "keys_int64s": keys_int64s,
                                                      "keys_strings": keys_strings, "keys_tensor": keys_tensor})
    value_name, values = _one_of("LabelEncoder", "values_*", {
        "values_floats": values_floats, "values_int64s": values_int64s, "values_strings": values_strings,
        "values_tensor": values_tensor})
    kinds = {"floats": np.float32, "int64s": np.int64, "strings": object}
    keys = np.asarray(keys, kinds.get(key_name.split("_")[1])).reshape(-1)
    values = np.asarray(values, kinds.get(value_name.split("_")[1])).reshape(-1)
    if len(keys) != len(values):
        raise OpAttributeError(f"LabelEncoder: {key_name} has {len(keys)} entries, {value_name} {len(values)}")
    if value_name == "values_tensor":
        require("LabelEncoder", default_tensor is not None and np.asarray(default_tensor).size == 1,
                "values_tensor needs a one-element default_tensor", OpAttributeError)
        default = np.asarray(default_tensor).astype(values.dtype).reshape(())
    else:
        default = np.asarray({"values_floats": default_float, "values_int64s": default_int64,
                              "values_strings": default_string}[value_name], values.dtype)
    nan_keys = keys != keys if keys.dtype.kind == "f" else np.zeros(len(keys), bool)
    nan_value = values[np.nonzero(nan_keys)[0][-1]] if nan_keys.any() else None
    keys, values = keys[~nan_keys], values[~nan_keys]
    last = len(keys) - 1 - np.unique(keys[::-1], return_index=True)[1]  # the last occurrence of each key
    return keys[last], values[last], default, nan_value


@defop("LabelEncoder", inputs="X:T1", outputs="Y:T2", types={"T1": _KEYS, "T2": _KEYS},
       attrs={name: Attr(kind, None) for name, kind in (
           ("keys_floats", "floats"), ("keys_int64s", "ints"), ("keys_strings", "strings"), ("keys_tensor", "tensor"),
           ("values_floats", "floats"), ("values_int64s", "ints"), ("values_strings", "strings"),
           ("values_tensor", "tensor"), ("default_tensor", "tensor"))} | {
           "default_float": Attr("float", -0.0), "default_int64": Attr("int", -1),
           "default_string": Attr("string", "_Unused")})
def label_encoder(**attrs):
    """Each element replaced by the value of its key (``default_*`` for elements that are no key)."""
    keys, values, default, nan_value = _label_table(**attrs)

    def kernel(x, out=None):
        if (x.dtype == dt.string) != (keys.dtype == object) or (x.dtype != dt.string and x.dtype != keys.dtype):
            raise DTypeError(f"LabelEncoder: input {dt.type_name(x.dtype)} does not match keys of "
                             f"{dt.type_name(keys.dtype) if keys.dtype != object else 'string'}")
        flat = x.reshape(-1)
        result = np.full(flat.shape, default, dtype=values.dtype)
        if len(keys):
            position = np.minimum(np.searchsorted(keys, flat), len(keys) - 1)
            found = keys[position] == flat
            result[found] = values[position[found]]
        if nan_value is not None:
            result[flat != flat] = nan_value
        return result.reshape(x.shape)

    return kernel


# -- TreeEnsemble -------------------------------------------------------------------------------------------------
_AGGREGATE = {0: "AVERAGE", 1: "SUM", 2: "MIN", 3: "MAX"}
_MEMBER = 6


def _membership(modes, values):
    """``(count_member_nodes, most_members)`` padded set table (NaN padding) and each node's row in it."""
    members = np.nonzero(modes == _MEMBER)[0]
    row = np.full(len(modes), -1)
    row[members] = np.arange(len(members))
    if not len(members):
        return np.zeros((0, 1)), row
    if values is None:
        raise OpAttributeError("TreeEnsemble: BRANCH_MEMBER nodes need membership_values")
    values = np.asarray(values, np.float64).reshape(-1)
    ends = np.nonzero(np.isnan(values))[0]
    require("TreeEnsemble", len(ends) == len(members),
            f"membership_values holds {len(ends)} NaN-delimited sets for {len(members)} BRANCH_MEMBER nodes",
            OpAttributeError)
    sets = np.split(values, ends + 1)[:len(members)]
    table = np.full((len(members), max(len(s) for s in sets)), np.nan)
    for k, chunk in enumerate(sets):  # one row per set attribute, at bind time
        table[k, :len(chunk) - 1] = chunk[:-1]
    return table, row


def _transform(scores, post_transform):
    if post_transform == 1 or post_transform == 3:  # SOFTMAX / SOFTMAX_ZERO (zeros stay zero)
        keep = scores != 0 if post_transform == 3 else np.ones(scores.shape, bool)
        shifted = np.where(keep, scores - np.max(np.where(keep, scores, -np.inf), axis=1, keepdims=True), -np.inf)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    if post_transform == 2:
        return 1.0 / (1.0 + np.exp(-scores))
    return scores


@defop("TreeEnsemble", inputs="X:T", outputs="Y:T", types={"T": frozenset({dt.float32, dt.float64, dt.float16})},
       attrs={"aggregate_function": Attr("int", 1, choices=tuple(_AGGREGATE)), "leaf_targetids": Attr("ints"),
              "leaf_weights": Attr("tensor"), "membership_values": Attr("tensor", None), "n_targets": Attr("int"),
              "nodes_falseleafs": Attr("ints"), "nodes_falsenodeids": Attr("ints"), "nodes_featureids": Attr("ints"),
              "nodes_hitrates": Attr("tensor", None), "nodes_missing_value_tracks_true": Attr("ints", None),
              "nodes_modes": Attr("tensor"), "nodes_splits": Attr("tensor"), "nodes_trueleafs": Attr("ints"),
              "nodes_truenodeids": Attr("ints"), "post_transform": Attr("int", 0, choices=(0, 1, 2, 3)),
              "tree_roots": Attr("ints")},
       infer=lambda attrs, infos: [TensorInfo((infos[0].shape[0] if infos[0].shape else None, attrs["n_targets"]),
                                              infos[0].dtype)])
def tree_ensemble(aggregate_function, leaf_targetids, leaf_weights, membership_values, n_targets, nodes_falseleafs,
                  nodes_falsenodeids, nodes_featureids, nodes_hitrates, nodes_missing_value_tracks_true, nodes_modes,
                  nodes_splits, nodes_trueleafs, nodes_truenodeids, post_transform, tree_roots):
    """Per-target aggregate (sum, average, min or max over trees) of the leaf each sample reaches in each tree,
    then the post transform (none, softmax, logistic, softmax ignoring zeros)."""
    modes = np.asarray(nodes_modes).astype(np.int64).reshape(-1)
    splits = np.asarray(nodes_splits, np.float64).reshape(-1)
    features = np.asarray(nodes_featureids, np.int64)
    count = len(modes)
    arrays = [splits, features, nodes_truenodeids, nodes_falsenodeids, nodes_trueleafs, nodes_falseleafs]
    if any(len(a) != count for a in arrays) or len(leaf_targetids) != np.asarray(leaf_weights).size:
        raise OpAttributeError("TreeEnsemble: the nodes_* attributes (and the leaf_* ones) must have equal lengths")
    tracks = np.zeros(count, bool) if nodes_missing_value_tracks_true is None else \
        np.asarray(nodes_missing_value_tracks_true, bool)
    true_ids, false_ids = np.asarray(nodes_truenodeids, np.int64), np.asarray(nodes_falsenodeids, np.int64)
    true_leaf, false_leaf = np.asarray(nodes_trueleafs, bool), np.asarray(nodes_falseleafs, bool)
    weights = np.asarray(leaf_weights, np.float64).reshape(-1)
    targets = np.asarray(leaf_targetids, np.int64)
    roots = np.asarray(tree_roots, np.int64)
    sets, set_row = _membership(modes, membership_values)
    if len(targets) and (targets.min() < 0 or targets.max() >= n_targets):
        raise OpAttributeError(f"TreeEnsemble: leaf_targetids must lie in [0, {n_targets})")

    def kernel(x, out=None):
        require("TreeEnsemble", x.ndim == 2, f"X must have shape (N, features), got {x.shape}")
        if count and features.max() >= x.shape[1]:
            raise IndexOutOfRangeError(f"TreeEnsemble: a node reads feature {features.max()} of {x.shape[1]}")
        n, trees = x.shape[0], len(roots)
        node = np.broadcast_to(roots, (n, trees)).copy()
        leaf = np.full((n, trees), -1)
        rows = np.arange(n)[:, None]
        for _ in range(count + 1):  # one tree level per step; a path visits each node at most once
            active = leaf < 0
            if not active.any():
                break
            current = node[active]
            value = x[np.broadcast_to(rows, node.shape)[active], features[current]].astype(np.float64)
            split, mode = splits[current], modes[current]
            member = set_row[current]
            in_set = (sets[np.maximum(member, 0)] == value[:, None]).any(axis=1) & (member >= 0) if len(sets) \
                else np.zeros(len(current), bool)
            goes_true = np.select([mode == 0, mode == 1, mode == 2, mode == 3, mode == 4, mode == 5, mode == 6],
                                  [value <= split, value < split, value >= split, value > split, value == split,
                                   value != split, in_set])
            goes_true |= np.isnan(value) & tracks[current]
            nxt = np.where(goes_true, true_ids[current], false_ids[current])
            to_leaf = np.where(goes_true, true_leaf[current], false_leaf[current])
            done = leaf[active]
            done[to_leaf] = nxt[to_leaf]
            leaf[active] = done
            moved = node[active]
            moved[~to_leaf] = nxt[~to_leaf]
            node[active] = moved
        if (leaf < 0).any():
            raise ShapeError("TreeEnsemble: the trees do not end in leaves (a cycle in nodes_*nodeids)")
        contribution, target = weights[leaf], targets[leaf]
        flat = (rows * n_targets + target).reshape(-1)
        name = _AGGREGATE[aggregate_function]
        if name in ("SUM", "AVERAGE"):
            result = np.bincount(flat, contribution.reshape(-1), n * n_targets).reshape(n, n_targets)
            if name == "AVERAGE":
                result /= max(trees, 1)
        else:
            info = np.finfo(x.dtype)
            result = np.full(n * n_targets, info.max if name == "MIN" else info.min, np.float64)
            (np.minimum if name == "MIN" else np.maximum).at(result, flat, contribution.reshape(-1))
            result = result.reshape(n, n_targets)
        return _transform(result, post_transform).astype(x.dtype)

    return kernel


@defop("Binarizer", inputs="X:T", outputs="Y:T", types={"T": frozenset({dt.float32, dt.float64, dt.int64,
                                                                        dt.int32})},
       attrs={"threshold": Attr("float", 0.0)}, infer=same_as_first)
def binarizer(threshold):
    """1 where X > threshold, else 0."""

    def kernel(x, out=None):
        return (x > threshold).astype(x.dtype)

    return kernel


@defop("ArrayFeatureExtractor", inputs="X:T Y:int64", outputs="Z:T",
       types={"T": frozenset({dt.float32, dt.float64, dt.int64, dt.int32, dt.string})})
def array_feature_extractor():
    """The elements of X's last axis at the indices Y (flattened); a 1-D X gives one row."""

    def kernel(x, y, out=None):
        require("ArrayFeatureExtractor", x.ndim >= 1, "X must have rank >= 1")
        index = y.reshape(-1)
        if index.size and (index.min() < -x.shape[-1] or index.max() >= x.shape[-1]):
            raise IndexOutOfRangeError(f"ArrayFeatureExtractor: indices {index.tolist()} out of range for the last "
                                       f"dim {x.shape[-1]}")
        picked = x[..., index]
        return picked.reshape((1, index.size) if x.ndim == 1 else x.shape[:-1] + (index.size,))

    return kernel


not_differentiable("LabelEncoder", "TreeEnsemble", "Binarizer", "ArrayFeatureExtractor")
