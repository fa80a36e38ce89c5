"""TensorFlow 2.21's module and class names for vfw.tensorflow's classes (outside keras).

Derived by walking vfw's namespaces beside the real packages' (same public names) and by comparing the types of
the objects common calls return (datasets, iterators, functions, variables, tensors). This table is the source of
truth: :mod:`vfw.frontends.tensorflow._type_names` applies it.
"""

# vfw module (below vfw.frontends.tensorflow) -> {class qualname in vfw: its module in TensorFlow,
# or (module, qualname) where the qualname differs too}.
CLASSES = {
    "_checkpoint": {
        "Checkpoint": "tensorflow.python.checkpoint.checkpoint",
        "CheckpointManager": "tensorflow.python.checkpoint.checkpoint_management",
    },
    "_checkpoint_utils": {
        "CheckpointOptions": "tensorflow.python.checkpoint.checkpoint_options",
        "TrackableView": "tensorflow.python.checkpoint.trackable_view",
    },
    "_concrete_function": {
        "ConcreteFunction": "tensorflow.python.eager.polymorphic_function.concrete_function",
    },
    "_context_ops": {
        "RegisterGradient": "tensorflow.python.framework.ops",
    },
    "_dtypes": {
        "DType": "tensorflow.python.framework.dtypes",
    },
    "_forward_accumulator": {
        "ForwardAccumulator": "tensorflow.python.eager.forwardprop",
    },
    "_framework_extras": {
        "AggregationMethod": "tensorflow.python.ops.gradients_util",
        "DeviceSpec": ("tensorflow.python.framework.device_spec", "DeviceSpecV2"),
        "TypeSpec": "tensorflow.python.framework.type_spec",
    },
    "_function": {
        "Function": "tensorflow.python.eager.polymorphic_function.polymorphic_function",
    },
    "_gradients": {
        "GradientTape": "tensorflow.python.eager.backprop",
        "UnconnectedGradients": "tensorflow.python.ops.unconnected_gradients",
    },
    "_image_ops": {
        "ResizeMethod": "tensorflow.python.ops.image_ops_impl",
    },
    "_indexed_slices": {
        "IndexedSlices": "tensorflow.python.framework.indexed_slices",
    },
    "_init_ops": {
        "Constant": "tensorflow.python.ops.init_ops_v2",
        "Ones": "tensorflow.python.ops.init_ops_v2",
        "RandomNormal": "tensorflow.python.ops.init_ops_v2",
        "RandomUniform": "tensorflow.python.ops.init_ops_v2",
        "Zeros": "tensorflow.python.ops.init_ops_v2",
    },
    "_io_example": {
        "BytesList": "tensorflow.core.example.feature_pb2",
        "Example": "tensorflow.core.example.example_pb2",
        "Feature": "tensorflow.core.example.feature_pb2",
        "Features": "tensorflow.core.example.feature_pb2",
        "FloatList": "tensorflow.core.example.feature_pb2",
        "Int64List": "tensorflow.core.example.feature_pb2",
    },
    "_io_feature_specs": {
        "FixedLenSequenceFeature": "tensorflow.python.ops.parsing_config",
        "SparseFeature": "tensorflow.python.ops.parsing_config",
    },
    "_io_gfile": {
        "GFile": "tensorflow.python.platform.gfile",
    },
    "_io_ops": {
        "FixedLenFeature": "tensorflow.python.ops.parsing_config",
        "TFRecordOptions": "tensorflow.python.lib.io.tf_record",
        "TFRecordWriter": "tensorflow.python.lib.io.tf_record",
        "VarLenFeature": "tensorflow.python.ops.parsing_config",
    },
    "_io_ragged": {
        "RaggedFeature": "tensorflow.python.ops.parsing_config",
    },
    "_io_sequence_example": {
        "FeatureList": "tensorflow.core.example.feature_pb2",
        "FeatureLists": "tensorflow.core.example.feature_pb2",
        "SequenceExample": "tensorflow.core.example.example_pb2",
    },
    "_linear_operator": {
        "LinearOperator": "tensorflow.python.ops.linalg.linear_operator",
        "LinearOperatorAdjoint": "tensorflow.python.ops.linalg.linear_operator_adjoint",
        "LinearOperatorComposition": "tensorflow.python.ops.linalg.linear_operator_composition",
        "LinearOperatorInversion": "tensorflow.python.ops.linalg.linear_operator_inversion",
    },
    "_linear_operator_basic": {
        "LinearOperatorDiag": "tensorflow.python.ops.linalg.linear_operator_diag",
        "LinearOperatorFullMatrix": "tensorflow.python.ops.linalg.linear_operator_full_matrix",
        "LinearOperatorIdentity": "tensorflow.python.ops.linalg.linear_operator_identity",
        "LinearOperatorLowerTriangular": "tensorflow.python.ops.linalg.linear_operator_lower_triangular",
        "LinearOperatorScaledIdentity": "tensorflow.python.ops.linalg.linear_operator_identity",
    },
    "_linear_operator_blocks": {
        "LinearOperatorBlockDiag": "tensorflow.python.ops.linalg.linear_operator_block_diag",
        "LinearOperatorBlockLowerTriangular": "tensorflow.python.ops.linalg.linear_operator_block_lower_triangular",
        "LinearOperatorKronecker": "tensorflow.python.ops.linalg.linear_operator_kronecker",
        "LinearOperatorLowRankUpdate": "tensorflow.python.ops.linalg.linear_operator_low_rank_update",
    },
    "_linear_operator_fourier": {
        "LinearOperatorCirculant": "tensorflow.python.ops.linalg.linear_operator_circulant",
        "LinearOperatorCirculant2D": "tensorflow.python.ops.linalg.linear_operator_circulant",
        "LinearOperatorCirculant3D": "tensorflow.python.ops.linalg.linear_operator_circulant",
        "LinearOperatorToeplitz": "tensorflow.python.ops.linalg.linear_operator_toeplitz",
    },
    "_linear_operator_special": {
        "LinearOperatorHouseholder": "tensorflow.python.ops.linalg.linear_operator_householder",
        "LinearOperatorPermutation": "tensorflow.python.ops.linalg.linear_operator_permutation",
        "LinearOperatorTridiag": "tensorflow.python.ops.linalg.linear_operator_tridiag",
        "LinearOperatorZeros": "tensorflow.python.ops.linalg.linear_operator_zeros",
    },
    "_lookup_mutable": {
        "DenseHashTable": "tensorflow.python.ops.lookup_ops",
        "MutableHashTable": "tensorflow.python.ops.lookup_ops",
    },
    "_lookup_ops": {
        "KeyValueTensorInitializer": "tensorflow.python.ops.lookup_ops",
        "StaticHashTable": "tensorflow.python.ops.lookup_ops",
        "StaticVocabularyTable": "tensorflow.python.ops.lookup_ops",
    },
    "_lookup_text": {
        "TextFileIndex": "tensorflow.python.ops.lookup_ops",
        "TextFileInitializer": "tensorflow.python.ops.lookup_ops",
    },
    "_module": {
        "Module": "tensorflow.python.module.module",
    },
    "_moving_average": {
        "ExponentialMovingAverage": "tensorflow.python.training.moving_averages",
    },
    "_name_scope": {
        "name_scope": ("tensorflow.python.framework.ops", "name_scope_v2"),
    },
    "_nn_rnn_wrappers": {
        "RNNCellDeviceWrapper": ("tensorflow.python.keras.layers.rnn_cell_wrapper_v2", "DeviceWrapper"),
        "RNNCellDropoutWrapper": ("tensorflow.python.keras.layers.rnn_cell_wrapper_v2", "DropoutWrapper"),
        "RNNCellResidualWrapper": ("tensorflow.python.keras.layers.rnn_cell_wrapper_v2", "ResidualWrapper"),
    },
    "_optional": {
        "Optional": "tensorflow.python.data.ops.optional_ops",
        "OptionalSpec": "tensorflow.python.data.ops.optional_ops",
    },
    "_ragged": {
        "RaggedTensor": "tensorflow.python.ops.ragged.ragged_tensor",
    },
    "_ragged_spec": {
        "RaggedTensorSpec": "tensorflow.python.ops.ragged.ragged_tensor",
    },
    "_random_common": {
        "Algorithm": "tensorflow.python.ops.random_ops_util",
    },
    "_random_generator": {
        "Generator": "tensorflow.python.ops.stateful_random_ops",
    },
    "_saved_model_asset": {
        "Asset": "tensorflow.python.trackable.asset",
    },
    "_shape": {
        "TensorShape": "tensorflow.python.framework.tensor_shape",
    },
    "_sparse_tensor": {
        "SparseTensor": "tensorflow.python.framework.sparse_tensor",
        "SparseTensorSpec": "tensorflow.python.framework.sparse_tensor",
    },
    "_summary_ops": {
        "SummaryWriter": "tensorflow.python.ops.summary_ops_v2",
    },
    "_tensor": {
        "SymbolicTensor": "tensorflow.python.framework.ops",
        "Tensor": ("tensorflow.python.framework.ops", "EagerTensor"),
        "TensorBase": ("tensorflow.python.framework.tensor", "Tensor"),
    },
    "_tensor_array": {
        "TensorArray": "tensorflow.python.ops.tensor_array_ops",
        "TensorArraySpec": "tensorflow.python.ops.tensor_array_ops",
    },
    "_tensor_spec": {
        "TensorSpec": "tensorflow.python.framework.tensor",
    },
    "_train_cluster": {
        "ClusterSpec": "tensorflow.python.training.server_lib",
        "Coordinator": "tensorflow.python.training.coordinator",
    },
    "_variables": {
        "ResourceVariable": "tensorflow.python.ops.resource_variable_ops",
        "Variable": "tensorflow.python.ops.variables",
        "VariableAggregationV2": "tensorflow.python.ops.variables",
        "VariableSynchronization": "tensorflow.python.ops.variables",
    },
    "autograph": {
        "Feature": "tensorflow.python.autograph.core.converter",
    },
    "config": {
        "LogicalDevice": "tensorflow.python.eager.context",
        "LogicalDeviceConfiguration": "tensorflow.python.eager.context",
        "PhysicalDevice": "tensorflow.python.eager.context",
    },
    "data._batching": {
        "BatchDataset": ("tensorflow.python.data.ops.batch_op", "_BatchDataset"),
        "PaddedBatchDataset": ("tensorflow.python.data.ops.padded_batch_op", "_PaddedBatchDataset"),
        "RebatchDataset": ("tensorflow.python.data.ops.rebatch_op", "_RebatchDataset"),
        "UnbatchDataset": ("tensorflow.python.data.ops.unbatch_op", "_UnbatchDataset"),
        "WindowDataset": ("tensorflow.python.data.ops.window_op", "_WindowDataset"),
    },
    "data._combine": {
        "ConcatenateDataset": ("tensorflow.python.data.ops.concatenate_op", "_ConcatenateDataset"),
        "DirectedInterleaveDataset":
            ("tensorflow.python.data.ops.directed_interleave_op", "_DirectedInterleaveDataset"),
        "ZipDataset": ("tensorflow.python.data.ops.zip_op", "_ZipDataset"),
    },
    "data._dataset": {
        "Dataset": ("tensorflow.python.data.ops.dataset_ops", "DatasetV2"),
    },
    "data._experimental_ops": {
        "IteratorSpec": "tensorflow.python.data.ops.iterator_ops",
        "Reducer": "tensorflow.python.data.experimental.ops.grouping",
    },
    "data._files": {
        "TFRecordDataset": ("tensorflow.python.data.ops.readers", "TFRecordDatasetV2"),
        "TextLineDataset": ("tensorflow.python.data.ops.readers", "TextLineDatasetV2"),
    },
    "data._fixed_length": {
        "FixedLengthRecordDataset": ("tensorflow.python.data.ops.readers", "FixedLengthRecordDatasetV2"),
    },
    "data._functional": {
        "FilterDataset": ("tensorflow.python.data.ops.filter_op", "_FilterDataset"),
        "FlatMapDataset": ("tensorflow.python.data.ops.flat_map_op", "_FlatMapDataset"),
        "InterleaveDataset": ("tensorflow.python.data.ops.interleave_op", "_InterleaveDataset"),
        "MapDataset": ("tensorflow.python.data.ops.map_op", "_MapDataset"),
        "ParallelMapDataset": ("tensorflow.python.data.ops.map_op", "_ParallelMapDataset"),
        "ScanDataset": ("tensorflow.python.data.ops.scan_op", "_ScanDataset"),
        "TakeWhileDataset": ("tensorflow.python.data.ops.take_while_op", "_TakeWhileDataset"),
    },
    "data._grouping": {
        "GroupByWindowDataset": ("tensorflow.python.data.ops.group_by_window_op", "_GroupByWindowDataset"),
    },
    "data._iterator": {
        "Iterator": ("tensorflow.python.data.ops.iterator_ops", "IteratorBase"),
        "NumpyIterator": "tensorflow.python.data.ops.dataset_ops",
        "OwnedIterator": "tensorflow.python.data.ops.iterator_ops",
    },
    "data._options": {
        "AutoShardPolicy": "tensorflow.python.data.ops.options",
        "AutotuneAlgorithm": "tensorflow.python.data.ops.options",
        "AutotuneOptions": "tensorflow.python.data.ops.options",
        "DistributeOptions": "tensorflow.python.data.ops.options",
        "ExternalStatePolicy": "tensorflow.python.data.ops.options",
        "OptimizationOptions": "tensorflow.python.data.ops.options",
        "Options": "tensorflow.python.data.ops.options",
        "ThreadingOptions": "tensorflow.python.data.ops.options",
    },
    "data._ordering": {
        "AssertCardinalityDataset":
            ("tensorflow.python.data.experimental.ops.cardinality", "_AssertCardinalityDataset"),
        "CacheDataset": "tensorflow.python.data.ops.cache_op",
        "IgnoreErrorsDataset": ("tensorflow.python.data.ops.ignore_errors_op", "_IgnoreErrorsDataset"),
        "OptionsDataset": ("tensorflow.python.data.ops.dataset_ops", "_OptionsDataset"),
        "PrefetchDataset": ("tensorflow.python.data.ops.prefetch_op", "_PrefetchDataset"),
        "RepeatDataset": ("tensorflow.python.data.ops.repeat_op", "_RepeatDataset"),
        "ShardDataset": ("tensorflow.python.data.ops.shard_op", "_ShardDataset"),
        "ShuffleDataset": ("tensorflow.python.data.ops.shuffle_op", "_ShuffleDataset"),
        "SkipDataset": ("tensorflow.python.data.ops.skip_op", "_SkipDataset"),
        "TakeDataset": ("tensorflow.python.data.ops.take_op", "_TakeDataset"),
        "UniqueDataset": ("tensorflow.python.data.ops.unique_op", "_UniqueDataset"),
    },
    "data._sources": {
        "GeneratorDataset": ("tensorflow.python.data.ops.flat_map_op", "_FlatMapDataset"),
        "RangeDataset": ("tensorflow.python.data.ops.range_op", "_RangeDataset"),
        "TensorDataset": ("tensorflow.python.data.ops.from_tensors_op", "_TensorDataset"),
        "TensorSliceDataset": ("tensorflow.python.data.ops.from_tensor_slices_op", "_TensorSliceDataset"),
    },
    "data._structure": {
        "DatasetSpec": "tensorflow.python.data.ops.dataset_ops",
    },
    "errors": {
        "AbortedError": "tensorflow.python.framework.errors_impl",
        "AlreadyExistsError": "tensorflow.python.framework.errors_impl",
        "CancelledError": "tensorflow.python.framework.errors_impl",
        "DataLossError": "tensorflow.python.framework.errors_impl",
        "DeadlineExceededError": "tensorflow.python.framework.errors_impl",
        "FailedPreconditionError": "tensorflow.python.framework.errors_impl",
        "InternalError": "tensorflow.python.framework.errors_impl",
        "InvalidArgumentError": "tensorflow.python.framework.errors_impl",
        "NotFoundError": "tensorflow.python.framework.errors_impl",
        "OpError": "tensorflow.python.framework.errors_impl",
        "OperatorNotAllowedInGraphError": "tensorflow.python.framework.errors_impl",
        "OutOfRangeError": "tensorflow.python.framework.errors_impl",
        "PermissionDeniedError": "tensorflow.python.framework.errors_impl",
        "ResourceExhaustedError": "tensorflow.python.framework.errors_impl",
        "UnauthenticatedError": "tensorflow.python.framework.errors_impl",
        "UnavailableError": "tensorflow.python.framework.errors_impl",
        "UnimplementedError": "tensorflow.python.framework.errors_impl",
        "UnknownError": "tensorflow.python.framework.errors_impl",
    },
    "saved_model": {
        "LoadOptions": "tensorflow.python.saved_model.load_options",
        "SaveOptions": "tensorflow.python.saved_model.save_options",
    },
}
