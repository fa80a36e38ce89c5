"""torch's einsum argument checks, before the engine's Einsum op (whose own messages differ), and the broadcasting
of size-1 labelled dimensions torch allows (``bij,bjk`` with batch sizes 1 and n).

Three or more operands go through opt_einsum's contraction planner first in torch, whose errors are ValueErrors with
their own words; with one or two operands torch's own checks speak.
"""


def check(equation, operands):
    """Raise torch's error for an ``equation`` that does not fit ``operands`` (tensors).

    Returns
    -------
    list
        Per operand, the shape it must be expanded to (size-1 dimensions of labels that are larger elsewhere), or
        None where it fits as it is.
    """
    planned = len(operands) >= 3
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        if planned:
            raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to the number of operands, "
                             f"{len(operands)}.")
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    labels = [_labelled_dims(term, t.array.ndim, i, planned) for i, (term, t) in enumerate(zip(terms, operands))]
    if arrow:
        _check_output(rhs, terms, planned)
    sizes, ellipsis = {}, {}
    for i, (pairs, t) in enumerate(zip(labels, operands)):
        shape = t.array.shape
        first = {}
        for c, d in pairs:  # a label repeated within one operand takes its diagonal: equal sizes only
            if c in first and first[c] != shape[d]:
                raise ValueError(f"Size of label '{c}' for operand {i} ({first[c]}) does not match previous terms "
                                 f"({shape[d]}).") if planned else \
                    RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't match, "
                                 f"{shape[d]} != {first[c]}")
            first.setdefault(c, shape[d])
        for c, size in first.items():  # across operands sizes broadcast (1 against n)
            prev = sizes.get(c)
            if prev is not None and size != prev and size != 1 and prev != 1:
                raise ValueError(f"Size of label '{c}' for operand {i} ({prev}) does not match previous terms "
                                 f"({size}).") if planned else \
                    RuntimeError(f"einsum(): subscript {c} has size {size} for operand {i} which does not "
                                 f"broadcast with previously seen size {prev}")
            if prev is None or prev == 1:
                sizes[c] = size
        if not planned and "..." in terms[i]:
            _check_ellipsis(shape, {d for _, d in pairs}, i, ellipsis)
    targets = []
    for pairs, t in zip(labels, operands):
        shape = list(t.array.shape)
        for c, d in pairs:
            shape[d] = sizes[c]
        targets.append(tuple(shape) if tuple(shape) != t.array.shape else None)
    return targets


def _labelled_dims(term, ndim, i, planned):
    """``[(label, dim), ...]`` of an operand's term (labels after an ellipsis count from the last dim)."""
    named = term.replace("...", "")
    if "..." not in term and len(named) != ndim:
        if planned:
            raise ValueError(f"Einstein sum subscript '{term}' does not contain the correct number of indices for "
                             f"operand {i}.")
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) does not match the "
                           f"number of dimensions ({ndim}) for operand {i} and no ellipsis was given")
    if len(named) > ndim:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) is more than the "
                           f"number of dimensions ({ndim}) for operand {i}")
    head, _, tail = term.partition("...")
    return list(zip(head + tail, list(range(len(head))) + list(range(ndim - len(tail), ndim))))


def _check_output(rhs, terms, planned):
    seen = set()
    for c in rhs.replace("...", ""):
        if c in seen and not planned:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        seen.add(c)
        if not any(c in term for term in terms):
            if planned:
                raise ValueError(f"Output character '{c}' did not appear in the input")
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                               "operand")


def _check_ellipsis(shape, labelled, i, seen):
    """The dims an ellipsis covers broadcast against the earlier operands' (aligned from the right)."""
    covered = [(d, shape[d]) for d in range(len(shape)) if d not in labelled]
    for k, (dim, size) in enumerate(reversed(covered)):
        prev = seen.get(k)
        if prev is not None and size != prev and size != 1 and prev != 1:
            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which "
                               f"does not broadcast with previously seen ellipsis with size {prev} for the respective "
                               "dimension")
        if prev is None or prev == 1:
            seen[k] = size
