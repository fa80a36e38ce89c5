"""The TensorFlow guide "Introduction to modules, layers, and models": a tf.Module with trainable and
non-trainable variables, a Dense module and a sequential module of two (variables, submodules), a module creating
its variables on first call, tf.train.Checkpoint write/restore and
tf.train.latest_checkpoint, tf.function methods, and the Keras layer versions (build on first call)."""

import os
import tempfile

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    class SimpleModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.a_variable = tf.Variable(5.0, name="train_me")
            self.non_trainable_variable = tf.Variable(5.0, trainable=False, name="do_not_train_me")

        def __call__(self, x):
            return self.a_variable * x + self.non_trainable_variable

    simple_module = SimpleModule(name="simple")
    show(simple_module(tf.constant(5.0)))
    show("trainable variables:", simple_module.trainable_variables)
    show("all variables:", simple_module.variables)
    show(simple_module.name, simple_module.name_scope.name)

    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    class SequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    tf.random.set_seed(42)
    my_model = SequentialModule(name="the_model")
    show("Model results:", my_model(tf.constant([[2.0, 2.0, 2.0]])))
    show("Submodules:", [type(m).__name__ for m in my_model.submodules], len(my_model.submodules))
    for var in my_model.variables:
        show(var.name, var.shape, var.dtype)
    show([v.name for v in my_model.trainable_variables])

    class FlexibleDenseModule(tf.Module):
        def __init__(self, out_features, name=None):
            super().__init__(name=name)
            self.is_built = False
            self.out_features = out_features

        def __call__(self, x):
            if not self.is_built:
                self.w = tf.Variable(tf.random.normal([x.shape[-1], self.out_features]), name="w")
                self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
                self.is_built = True
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    class MySequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = FlexibleDenseModule(out_features=3)
            self.dense_2 = FlexibleDenseModule(out_features=2)

        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    my_model = MySequentialModule(name="the_model")
    show("Model results:", my_model(tf.constant([[2.0, 2.0, 2.0]])))

    with tempfile.TemporaryDirectory() as tmp:
        chkp_path = os.path.join(tmp, "my_checkpoint")
        checkpoint = tf.train.Checkpoint(model=my_model)
        written = checkpoint.write(chkp_path)
        show(os.path.basename(written))
        show(sorted(os.listdir(tmp)))
        saved = [v.numpy() for v in my_model.variables]
        for v in my_model.variables:
            v.assign(tf.zeros_like(v))
        new_checkpoint = tf.train.Checkpoint(model=my_model)
        new_checkpoint.restore(chkp_path)
        show(my_model(tf.constant([[2.0, 2.0, 2.0]])))
        show(all((a == v.numpy()).all() for a, v in zip(saved, my_model.variables)))
        manager_path = checkpoint.save(os.path.join(tmp, "ckpt"))
        show(os.path.basename(manager_path), os.path.basename(tf.train.latest_checkpoint(tmp)))

    class FunctionModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        @tf.function
        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    my_model = FunctionModule(name="the_model")
    show(my_model([[2.0, 2.0, 2.0]]))
    show(my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))

    class MyDense(tf.keras.layers.Layer):
        def __init__(self, in_features, out_features, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def call(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    simple_layer = MyDense(name="simple", in_features=3, out_features=3)
    show(simple_layer(tf.constant([[2.0, 2.0, 2.0]])))

    class FlexibleDense(tf.keras.layers.Layer):
        def __init__(self, out_features, **kwargs):
            super().__init__(**kwargs)
            self.out_features = out_features

        def build(self, input_shape):
            self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name="w")
            self.b = tf.Variable(tf.zeros([self.out_features]), name="b")

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    flexible_dense = FlexibleDense(out_features=3)
    show(flexible_dense.variables)
    show("Model results:", flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])))
    show(len(flexible_dense.variables), [v.shape for v in flexible_dense.variables])
    try:
        flexible_dense(tf.constant([[2.0, 2.0, 2.0, 2.0]]))
    except tf.errors.InvalidArgumentError as e:
        show(type(e).__name__)
    return out


if __name__ == "__main__":
    print("\n".join(main()))
