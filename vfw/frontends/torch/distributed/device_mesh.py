"""``torch.distributed.device_mesh``: a 1-D ``DeviceMesh`` over the default process group (vfw's process groups are
the world group, so a mesh spans every rank in one dimension)."""

from vfw.frontends.torch.distributed._c10d import resolve_group

__all__ = ["DeviceMesh", "init_device_mesh"]


class DeviceMesh:
    """The ranks of the default process group laid out along one mesh dimension.

    Parameters
    ----------
    device_type : str
        ``"cpu"``.
    mesh : Tensor or sequence of int
        The ranks, ``0..world_size-1`` in order.
    mesh_dim_names : tuple of str, optional
        The dimension's name (for ``mesh["name"]`` and ``get_group("name")``).
    """

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, backend_override=None, _init_backend=True):
        import vfw.torch as torch

        self.device_type = device_type
        self.mesh = mesh.to(torch.int32) if isinstance(mesh, torch.Tensor) else torch.tensor(mesh, dtype=torch.int32)
        if self.mesh.ndim != 1:
            raise NotImplementedError(f"DeviceMesh: vfw supports 1-D meshes only (all ranks of the default group), "
                                      f"got a mesh of shape {tuple(self.mesh.shape)}")
        self._group = resolve_group(None, "DeviceMesh")
        if self.mesh.tolist() != list(range(self._group.size())):
            raise NotImplementedError(f"DeviceMesh: the mesh must hold every rank 0..{self._group.size() - 1} in order "
                                      f"(vfw's process groups are the world group), got {self.mesh.tolist()}")
        if mesh_dim_names is not None and len(mesh_dim_names) != 1:
            raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                               f"{len(mesh_dim_names)} and len(mesh_shape):1.")
        self.mesh_dim_names = None if mesh_dim_names is None else tuple(mesh_dim_names)

    @property
    def ndim(self):
        return 1

    @property
    def shape(self):
        return (self._group.size(),)

    def size(self, mesh_dim=None):
        """The number of ranks (along ``mesh_dim``)."""
        self._dimension(mesh_dim)
        return self._group.size()

    def get_group(self, mesh_dim=None):
        """The process group of dimension ``mesh_dim`` (index or name): the default group."""
        self._dimension(mesh_dim)
        return self._group

    def get_all_groups(self):
        return [self._group]

    def get_rank(self):
        """This process's global rank."""
        return self._group.rank()

    def get_local_rank(self, mesh_dim=None):
        """This process's rank along ``mesh_dim``."""
        self._dimension(mesh_dim)
        return self._group.rank()

    def get_coordinate(self):
        """This process's coordinates in the mesh."""
        return (self._group.rank(),)

    def __getitem__(self, mesh_dim_names):
        if self.mesh_dim_names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else tuple(mesh_dim_names)
        if names != self.mesh_dim_names:
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are "
                           f"{list(self.mesh_dim_names)}.")
        return self

    def _dimension(self, mesh_dim):
        if mesh_dim is None or mesh_dim == 0 or (self.mesh_dim_names and mesh_dim in self.mesh_dim_names):
            return 0
        if isinstance(mesh_dim, int):
            raise IndexError("list index out of range")
        raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh dimensions are: "
                       f"mesh_dim_names={self.mesh_dim_names}")

    def __repr__(self):
        layout = f"({self.mesh_dim_names[0]}={self.size()})" if self.mesh_dim_names else f"({self.size()},)"
        return f"DeviceMesh({layout}, '{self.device_type}', stride=((),))"


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A :class:`DeviceMesh` of ``mesh_shape`` (one dimension: the world size) on ``device_type``."""
    shape = tuple(mesh_shape)
    if mesh_dim_names is not None and len(mesh_dim_names) != len(shape):
        raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                           f"{len(mesh_dim_names)} and len(mesh_shape):{len(shape)}.")
    world = resolve_group(None, "init_device_mesh").size()
    count = 1
    for extent in shape:
        count *= extent
    if count > world:
        raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but found {count} ranks!")
    if len(shape) != 1 or count != world:
        raise NotImplementedError(f"init_device_mesh: vfw supports a 1-D mesh of all {world} ranks only, got "
                                  f"mesh_shape {shape}")
    return DeviceMesh(device_type, list(range(world)), mesh_dim_names=mesh_dim_names)
