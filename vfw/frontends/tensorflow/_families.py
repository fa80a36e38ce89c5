"""The op family modules of vfw.tensorflow and how their names reach TF's namespaces.

Each family module lists, in ``NAMESPACES``, which of its functions appear in which TF
namespace (``"tf"`` for the top level, ``"math"``, ``"linalg"``, ``"nn"``, ``"random"``...),
and in ``TENSOR_METHODS`` the methods and operators it gives ``tf.Tensor``.  The namespace
modules (``tf.math`` is ``math.py``...) and the package ``__init__`` gather them from here.
"""

from vfw.frontends.tensorflow import (
    _array_gather,
    _array_ops,
    _array_slicing,
    _array_sorting,
    _array_transform,
    _audio_ops,
    _check_numerics,
    _checkpoint,
    _complex_ops,
    _context_ops,
    _control_flow,
    _creation,
    _creation_sequences,
    _debugging_ops,
    _edit_distance,
    _fftnd_raw_ops,
    _forward_accumulator,
    _function,
    _functional_ops,
    _gradients,
    _hash_ops,
    _histogram_ops,
    _image_basic_ops,
    _image_codec,
    _image_color,
    _image_detection,
    _image_geometry,
    _image_jpeg,
    _image_ops,
    _image_patches,
    _image_proposals,
    _image_sample_box,
    _indexed_slices,
    _init_ops,
    _io_csv,
    _io_example,
    _io_ops,
    _linalg_decomp,
    _linalg_eig,
    _linalg_lu,
    _linalg_matrix_functions,
    _linalg_norms,
    _linalg_ops,
    _linear_operator,
    _linear_operator_basic,
    _linear_operator_blocks,
    _linear_operator_fourier,
    _linear_operator_special,
    _lookup_ops,
    _math_incomplete,
    _math_ops,
    _math_sobol,
    _math_special,
    _module,
    _nn_candidates,
    _nn_conv,
    _nn_conv_transpose,
    _nn_ctc,
    _nn_ctc_decode,
    _nn_fractional_pool,
    _nn_isotonic,
    _nn_losses,
    _nn_morphology,
    _nn_norm,
    _nn_ops,
    _nn_pool,
    _nn_rnn_wrappers,
    _nn_sampled,
    _nn_space_to_batch,
    _print,
    _ragged,
    _ragged_math,
    _ragged_ops,
    _ragged_spec,
    _random_generator,
    _random_index_shuffle,
    _random_ops,
    _random_stateless,
    _signal_dct,
    _signal_fft,
    _signal_fftnd,
    _signal_mel,
    _signal_windows,
    _sparse_embedding,
    _sparse_ops,
    _sparse_reduce,
    _sparse_tensor,
    _string_ops,
    _string_script,
    _string_unicode,
    _tensor_array,
    _tensor_proto,
    _tensor_spec,
    _variables,
)

FAMILIES = [_creation, _creation_sequences, _math_ops, _array_ops, _array_gather, _array_slicing, _array_sorting,
            _array_transform, _debugging_ops, _linalg_ops, _linalg_decomp, _linalg_norms, _nn_ops, _nn_losses,
            _nn_norm, _nn_conv, _nn_conv_transpose, _nn_pool, _random_ops, _random_stateless, _random_generator,
            _variables, _module, _gradients, _function, _tensor_spec, _control_flow, _print, _context_ops,
            _functional_ops, _tensor_array, _histogram_ops, _indexed_slices, _init_ops,
            _image_ops, _image_color, _math_special, _linalg_lu, _nn_ctc, _math_incomplete,
            _ragged, _string_ops, _nn_candidates, _nn_sampled, _nn_ctc_decode, _nn_morphology, _nn_isotonic,
            _nn_fractional_pool, _nn_space_to_batch, _nn_rnn_wrappers, _hash_ops, _string_unicode,
            _sparse_tensor, _sparse_ops, _sparse_reduce, _sparse_embedding, _image_patches, _checkpoint,
            _image_geometry, _io_csv,
            _complex_ops, _signal_fft, _signal_fftnd, _fftnd_raw_ops,
            _signal_windows, _signal_dct, _signal_mel, _linalg_eig, _lookup_ops, _ragged_ops, _io_example, _io_ops,
            _image_codec, _linear_operator, _linear_operator_basic, _linear_operator_special,
            _linear_operator_blocks, _linear_operator_fourier, _linalg_matrix_functions, _edit_distance,
            _tensor_proto, _audio_ops, _image_detection, _image_sample_box,
            _image_jpeg, _forward_accumulator, _image_basic_ops, _string_script, _math_sobol,
            _ragged_spec, _random_index_shuffle, _check_numerics, _image_proposals,
            _ragged_math]  # _ragged_math last: its ragged-dispatching wrappers replace the dense ops


def names(namespace):
    """Every public name the families give ``namespace``, as a dict name -> object."""
    found = {}
    for family in FAMILIES:
        for name in family.NAMESPACES.get(namespace, ()):
            found[name] = getattr(family, name)
    return found


def install(tensor_class):
    """Bind every family's methods and operators onto ``tensor_class``."""
    for family in FAMILIES:
        for name, fn in getattr(family, "TENSOR_METHODS", {}).items():
            setattr(tensor_class, name, fn)
