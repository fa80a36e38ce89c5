"""Engine-neutral file formats shared by the frontends: TFRecord framing (``tfrecord``), PNG (``png``), WAV
(``wav``) and TensorBoard event files (``tensorboard``).  Nothing here imports a frontend."""
