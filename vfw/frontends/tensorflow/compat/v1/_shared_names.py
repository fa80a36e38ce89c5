"""The names TensorFlow 2.21 gives ``tf.compat.v1`` as the very objects of the TF 2 API.

Keyed by namespace (``""`` is ``tf.compat.v1`` itself, ``"nn"`` is ``tf.compat.v1.nn``...).  Only these are
aliased: every other v1 name has TF 1 semantics (other signatures, graph-mode behaviour) and is left to
raise "does not provide it yet".  Listed from ``dir()`` of real TF 2.21 by object identity.
"""

SHARED_WITH_V2 = {
    '': [
        'AggregationMethod', 'Assert', 'CriticalSection', 'DType', 'GradientTape', 'Graph', 'IndexedSlices',
        'IndexedSlicesSpec', 'Module', 'NoneTensorSpec', 'Operation', 'OptionalSpec', 'RaggedTensor',
        'RaggedTensorSpec', 'RegisterGradient', 'SparseTensor', 'SparseTensorSpec', 'Tensor', 'TensorArray',
        'TensorArraySpec', 'TensorShape', 'TensorSpec', 'TypeSpec', 'UnconnectedGradients', 'VariableSynchronization',
        'abs', 'acos', 'acosh', 'add', 'add_n', 'approx_top_k', 'argsort', 'as_dtype', 'as_string', 'asin', 'asinh',
        'atan', 'atan2', 'atanh', 'bfloat16', 'bitcast', 'bool', 'broadcast_dynamic_shape', 'broadcast_static_shape',
        'broadcast_to', 'cast', 'check_pinned', 'clip_by_global_norm', 'clip_by_norm', 'clip_by_value', 'complex',
        'complex128', 'complex64', 'concat', 'control_dependencies', 'conv', 'conv2d_backprop_filter_v2',
        'conv2d_backprop_input_v2', 'cos', 'cosh', 'cumsum', 'custom_gradient', 'divide', 'double',
        'dynamic_partition', 'dynamic_stitch', 'edit_distance', 'einsum', 'ensure_shape', 'equal', 'exp',
        'extract_volume_patches', 'eye', 'fftnd', 'fill', 'fingerprint', 'float16', 'float32', 'float64', 'floor',
        'function', 'get_logger', 'get_static_value', 'grad_pass_through', 'greater', 'greater_equal', 'group',
        'guarantee_const', 'half', 'histogram_fixed_width', 'histogram_fixed_width_bins', 'identity', 'identity_n',
        'ifftnd', 'import_graph_def', 'init_scope', 'int16', 'int32', 'int64', 'int8', 'irfftnd',
        'is_symbolic_tensor', 'is_tensor', 'less', 'less_equal', 'linspace', 'load_library', 'load_op_library',
        'logical_and', 'logical_not', 'logical_or', 'make_ndarray', 'make_tensor_proto', 'matmul',
        'matrix_square_root', 'maximum', 'meshgrid', 'minimum', 'multiply', 'negative', 'newaxis', 'no_gradient',
        'no_op', 'nondifferentiable_batch_function', 'not_equal', 'numpy_function', 'one_hot', 'ones',
        'parallel_stack', 'pow', 'print', 'py_function', 'qint16', 'qint32', 'qint8', 'quint16', 'quint8',
        'ragged_fill_empty_rows', 'ragged_fill_empty_rows_grad', 'random_index_shuffle', 'range', 'rank', 'realdiv',
        'recompute_grad', 'register_tensor_conversion_function', 'repeat', 'required_space_to_batch_paddings',
        'reshape', 'resource', 'reverse', 'rfftnd', 'roll', 'round', 'saturate_cast', 'scatter_nd', 'searchsorted',
        'sequence_mask', 'shape_n', 'sigmoid', 'sign', 'sin', 'sinh', 'slice', 'sort', 'space_to_batch_nd', 'split',
        'sqrt', 'square', 'stack', 'stop_gradient', 'strided_slice', 'string', 'subtract', 'switch_case', 'tan',
        'tanh', 'tensor_scatter_nd_add', 'tensor_scatter_nd_max', 'tensor_scatter_nd_min', 'tensor_scatter_nd_sub',
        'tensor_scatter_nd_update', 'tensordot', 'tile', 'timestamp', 'truediv', 'truncatediv', 'truncatemod',
        'type_spec_from_value', 'uint16', 'uint32', 'uint64', 'uint8', 'unique', 'unique_with_counts',
        'unravel_index', 'unstack', 'variant', 'vectorized_map', 'zeros'
    ],
    'data': [
        'AUTOTUNE', 'DatasetSpec', 'INFINITE_CARDINALITY', 'NumpyIterator', 'Options', 'ThreadingOptions',
        'UNKNOWN_CARDINALITY'
    ],
    'nn': [
        'all_candidate_sampler', 'approx_max_k', 'approx_min_k', 'atrous_conv2d', 'atrous_conv2d_transpose',
        'avg_pool1d', 'avg_pool3d', 'batch_normalization', 'bias_add', 'collapse_repeated', 'compute_accidental_hits',
        'compute_average_loss', 'conv1d_transpose', 'conv_transpose', 'ctc_greedy_decoder', 'ctc_unique_labels',
        'depthwise_conv2d_backprop_filter', 'depthwise_conv2d_backprop_input', 'elu',
        'fixed_unigram_candidate_sampler', 'l2_loss', 'l2_normalize', 'learned_unigram_candidate_sampler',
        'local_response_normalization', 'log_poisson_loss', 'lrn', 'max_pool1d', 'max_pool2d', 'max_pool3d',
        'normalize_moments', 'relu', 'scale_regularization_loss', 'selu', 'softsign', 'top_k', 'with_space_to_batch',
        'zero_fraction'
    ],
    'math': [
        'accumulate_n', 'add_n', 'approx_max_k', 'approx_min_k', 'atan2', 'betainc', 'cumprod', 'cumsum',
        'cumulative_logsumexp', 'equal', 'floordiv', 'greater', 'greater_equal', 'igamma', 'igammac',
        'invert_permutation', 'is_finite', 'is_inf', 'is_nan', 'is_non_decreasing', 'is_strictly_increasing',
        'l2_normalize', 'lbeta', 'less', 'less_equal', 'logical_and', 'logical_not', 'logical_or', 'logical_xor',
        'nextafter', 'not_equal', 'polygamma', 'polyval', 'pow', 'segment_max', 'segment_mean', 'segment_min',
        'segment_prod', 'segment_sum', 'sobol_sample', 'softsign', 'squared_difference', 'subtract', 'top_k',
        'truediv', 'unsorted_segment_max', 'unsorted_segment_mean', 'unsorted_segment_min', 'unsorted_segment_prod',
        'unsorted_segment_sqrt_n', 'unsorted_segment_sum', 'xdivy', 'xlog1py', 'xlogy', 'zero_fraction', 'zeta'
    ],
    'image': [
        'adjust_brightness', 'adjust_contrast', 'adjust_gamma', 'adjust_hue', 'adjust_jpeg_quality',
        'adjust_saturation', 'central_crop', 'combined_non_max_suppression', 'convert_image_dtype',
        'crop_to_bounding_box', 'decode_and_crop_jpeg', 'decode_bmp', 'decode_gif', 'decode_image', 'decode_jpeg',
        'decode_jxl', 'decode_png', 'decode_webp', 'encode_jpeg', 'encode_png', 'extract_jpeg_shape',
        'flip_left_right', 'flip_up_down', 'generate_bounding_box_proposals', 'grayscale_to_rgb', 'hsv_to_rgb',
        'image_gradients', 'is_jpeg', 'non_max_suppression', 'non_max_suppression_overlaps',
        'non_max_suppression_padded', 'non_max_suppression_with_scores', 'pad_to_bounding_box',
        'per_image_standardization', 'psnr', 'random_brightness', 'random_contrast', 'random_crop',
        'random_flip_left_right', 'random_flip_up_down', 'random_hue', 'random_jpeg_quality', 'random_saturation',
        'resize_with_crop_or_pad', 'rgb_to_grayscale', 'rgb_to_hsv', 'rgb_to_yiq', 'rgb_to_yuv', 'rot90',
        'sobel_edges', 'ssim', 'ssim_multiscale', 'total_variation', 'transpose', 'yiq_to_rgb', 'yuv_to_rgb'
    ],
    'linalg': [
        'LinearOperator', 'LinearOperatorAdjoint', 'LinearOperatorBlockDiag', 'LinearOperatorBlockLowerTriangular',
        'LinearOperatorCirculant', 'LinearOperatorCirculant2D', 'LinearOperatorCirculant3D',
        'LinearOperatorComposition', 'LinearOperatorDiag', 'LinearOperatorFullMatrix', 'LinearOperatorHouseholder',
        'LinearOperatorIdentity', 'LinearOperatorInversion', 'LinearOperatorKronecker', 'LinearOperatorLowRankUpdate',
        'LinearOperatorLowerTriangular', 'LinearOperatorPermutation', 'LinearOperatorScaledIdentity',
        'LinearOperatorToeplitz', 'LinearOperatorTridiag', 'LinearOperatorZeros', 'adjoint', 'band_part', 'cholesky',
        'cholesky_solve', 'cross', 'det', 'eigh', 'eigh_tridiagonal', 'eigvalsh', 'einsum', 'expm', 'eye',
        'global_norm', 'inv', 'l2_normalize', 'logdet', 'logm', 'lstsq', 'lu', 'lu_matrix_inverse', 'lu_reconstruct',
        'lu_solve', 'matrix_rank', 'matvec', 'normalize', 'pinv', 'qr', 'set_diag', 'slogdet', 'solve', 'sqrtm',
        'svd', 'tensor_diag', 'tensordot', 'triangular_solve', 'tridiagonal_matmul', 'tridiagonal_solve'
    ],
    'random': [
        'Algorithm', 'Generator', 'all_candidate_sampler', 'categorical', 'create_rng_state',
        'fixed_unigram_candidate_sampler', 'fold_in', 'gamma', 'get_global_generator',
        'learned_unigram_candidate_sampler', 'log_uniform_candidate_sampler', 'normal', 'set_global_generator',
        'shuffle', 'split', 'stateless_binomial', 'stateless_categorical', 'stateless_gamma', 'stateless_normal',
        'stateless_parameterized_truncated_normal', 'stateless_poisson', 'stateless_truncated_normal',
        'stateless_uniform', 'truncated_normal', 'uniform', 'uniform_candidate_sampler'
    ],
    'strings': [
        'as_string', 'bytes_split', 'format', 'join', 'lower', 'ngrams', 'regex_full_match', 'regex_replace', 'strip',
        'to_hash_bucket_fast', 'to_hash_bucket_strong', 'unicode_decode', 'unicode_decode_with_offsets',
        'unicode_encode', 'unicode_script', 'unicode_split', 'unicode_split_with_offsets', 'unicode_transcode',
        'unsorted_segment_join', 'upper'
    ],
    'io': [
        'FixedLenFeature', 'FixedLenSequenceFeature', 'RaggedFeature', 'SparseFeature', 'TFRecordOptions',
        'TFRecordWriter', 'VarLenFeature', 'decode_and_crop_jpeg', 'decode_base64', 'decode_bmp', 'decode_compressed',
        'decode_gif', 'decode_image', 'decode_jpeg', 'decode_json_example', 'decode_jxl', 'decode_png',
        'decode_proto', 'decode_webp', 'deserialize_many_sparse', 'encode_base64', 'encode_jpeg', 'encode_png',
        'encode_proto', 'extract_jpeg_shape', 'is_jpeg', 'match_filenames_once', 'matching_files',
        'parse_sequence_example', 'parse_single_sequence_example', 'parse_tensor', 'read_file', 'serialize_tensor',
        'write_file', 'write_graph'
    ],
    'dtypes': [
        'DType', 'QUANTIZED_DTYPES', 'as_dtype', 'bfloat16', 'bool', 'cast', 'complex', 'complex128', 'complex64',
        'double', 'float16', 'float32', 'float64', 'half', 'int16', 'int32', 'int64', 'int8', 'qint16', 'qint32',
        'qint8', 'quint16', 'quint8', 'resource', 'saturate_cast', 'string', 'uint16', 'uint32', 'uint64', 'uint8',
        'variant'
    ],
    'errors': [
        'ABORTED', 'ALREADY_EXISTS', 'AbortedError', 'AlreadyExistsError', 'CANCELLED', 'CancelledError', 'DATA_LOSS',
        'DEADLINE_EXCEEDED', 'DataLossError', 'DeadlineExceededError', 'FAILED_PRECONDITION',
        'FailedPreconditionError', 'INTERNAL', 'INVALID_ARGUMENT', 'InternalError', 'InvalidArgumentError',
        'NOT_FOUND', 'NotFoundError', 'OK', 'OUT_OF_RANGE', 'OpError', 'OutOfRangeError', 'PERMISSION_DENIED',
        'PermissionDeniedError', 'RESOURCE_EXHAUSTED', 'ResourceExhaustedError', 'UNAUTHENTICATED', 'UNAVAILABLE',
        'UNIMPLEMENTED', 'UNKNOWN', 'UnauthenticatedError', 'UnavailableError', 'UnimplementedError', 'UnknownError'
    ],
    'nest': [
        'assert_same_structure', 'flatten', 'is_nested', 'map_structure', 'pack_sequence_as'
    ],
    'debugging': [
        'Assert', 'assert_proper_iterable', 'assert_same_float_dtype', 'disable_check_numerics',
        'disable_traceback_filtering', 'enable_check_numerics', 'enable_traceback_filtering',
        'get_log_device_placement', 'is_numeric_tensor', 'is_traceback_filtering_enabled', 'set_log_device_placement'
    ],
    'sparse': [
        'SparseTensor', 'bincount', 'cross', 'cross_hashed', 'expand_dims', 'eye', 'fill_empty_rows', 'from_dense',
        'mask', 'maximum', 'minimum', 'reorder', 'reset_shape', 'reshape', 'retain', 'slice', 'softmax',
        'sparse_dense_matmul', 'to_dense', 'to_indicator', 'transpose'
    ],
    'signal': [
        'dct', 'fft', 'fft2d', 'fft3d', 'fftnd', 'fftshift', 'frame', 'hamming_window', 'hann_window', 'idct', 'ifft',
        'ifft2d', 'ifft3d', 'ifftnd', 'ifftshift', 'inverse_mdct', 'inverse_stft', 'inverse_stft_window_fn', 'irfft',
        'irfft2d', 'irfft3d', 'irfftnd', 'kaiser_bessel_derived_window', 'kaiser_window',
        'linear_to_mel_weight_matrix', 'mdct', 'mfccs_from_log_mel_spectrograms', 'overlap_and_add', 'rfft', 'rfft2d',
        'rfft3d', 'rfftnd', 'stft', 'vorbis_window'
    ],
    'bitwise': [
        'bitwise_and', 'bitwise_or', 'bitwise_xor', 'invert', 'left_shift', 'right_shift'
    ],
    'ragged': [
        'boolean_mask', 'constant', 'cross', 'cross_hashed', 'map_flat_values', 'range', 'row_splits_to_segment_ids',
        'segment_ids_to_row_splits', 'stack', 'stack_dynamic_partitions'
    ],
    'sets': [
        'difference', 'intersection', 'size', 'union'
    ],
    'lookup': [
        'KeyValueTensorInitializer', 'TextFileIndex', 'TextFileInitializer'
    ],
    'config': [
        'LogicalDevice', 'LogicalDeviceConfiguration', 'PhysicalDevice', 'experimental_connect_to_cluster',
        'experimental_connect_to_host', 'experimental_functions_run_eagerly', 'experimental_run_functions_eagerly',
        'functions_run_eagerly', 'get_logical_device_configuration', 'get_soft_device_placement',
        'get_visible_devices', 'list_logical_devices', 'list_physical_devices', 'run_functions_eagerly',
        'set_logical_device_configuration', 'set_soft_device_placement', 'set_visible_devices'
    ],
    'autograph': [
        'set_verbosity', 'trace'
    ],
    'audio': [
        'decode_wav', 'encode_wav'
    ],
    'saved_model': [
        'ASSETS_DIRECTORY', 'ASSETS_KEY', 'Asset', 'CLASSIFY_INPUTS', 'CLASSIFY_METHOD_NAME',
        'CLASSIFY_OUTPUT_CLASSES', 'CLASSIFY_OUTPUT_SCORES', 'DEBUG_DIRECTORY', 'DEBUG_INFO_FILENAME_PB',
        'DEFAULT_SERVING_SIGNATURE_DEF_KEY', 'GPU', 'PREDICT_INPUTS', 'PREDICT_METHOD_NAME', 'PREDICT_OUTPUTS',
        'REGRESS_INPUTS', 'REGRESS_METHOD_NAME', 'REGRESS_OUTPUTS', 'SAVED_MODEL_FILENAME_PB',
        'SAVED_MODEL_FILENAME_PBTXT', 'SAVED_MODEL_SCHEMA_VERSION', 'SERVING', 'SaveOptions', 'TPU', 'TRAINING',
        'VARIABLES_DIRECTORY', 'VARIABLES_FILENAME', 'save'
    ],
    'train': [
        'BytesList', 'CheckpointManager', 'CheckpointOptions', 'ClusterDef', 'ClusterSpec', 'Coordinator', 'Example',
        'ExponentialMovingAverage', 'Feature', 'FeatureList', 'FeatureLists', 'Features', 'FloatList', 'Int64List',
        'JobDef', 'SequenceExample', 'ServerDef', 'checkpoints_iterator', 'get_checkpoint_state', 'latest_checkpoint',
        'list_variables', 'load_checkpoint', 'load_variable'
    ],
    'test': [
        'Benchmark', 'TestCase', 'benchmark_config', 'create_local_cluster', 'disable_with_predicate',
        'gpu_device_name', 'is_built_with_cuda', 'is_built_with_gpu_support', 'is_built_with_rocm',
        'is_built_with_xla', 'is_cpu_target_available', 'is_gpu_available', 'main', 'with_eager_op_as_function'
    ],
    'distribute': [
        'CrossDeviceOps', 'HierarchicalCopyAllReduce', 'InputContext', 'InputReplicationMode', 'NcclAllReduce',
        'ReduceOp', 'ReductionToOneDevice', 'RunOptions', 'Server', 'experimental_set_strategy',
        'get_replica_context', 'get_strategy', 'has_strategy', 'in_cross_replica_context'
    ],
    'sysconfig': [
        'CXX11_ABI_FLAG', 'CXX_VERSION', 'MONOLITHIC_BUILD', 'get_build_info', 'get_compile_flags', 'get_include',
        'get_lib', 'get_link_flags'
    ],
    'version': [
        'COMPILER_VERSION', 'GIT_VERSION', 'GRAPH_DEF_VERSION', 'GRAPH_DEF_VERSION_MIN_CONSUMER',
        'GRAPH_DEF_VERSION_MIN_PRODUCER', 'VERSION'
    ],
}
