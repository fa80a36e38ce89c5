"""Enums torch defines in C++ (pybind11): their classes print as ``<class 'module.Name'>``, not ``<enum 'Name'>``."""

import enum


class CEnumType(enum.EnumMeta):
    """Metaclass of enums torch binds from C++ (``ProfilerActivity``, ``SDPBackend``)."""

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__qualname__}'>"
