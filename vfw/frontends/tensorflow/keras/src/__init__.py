"""Keras implementation modules; the public namespaces gather them (see ``_api``)."""
