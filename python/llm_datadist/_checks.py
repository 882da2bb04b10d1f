# SPDX-License-Identifier: LGPL-2.1-or-later
"""Argument checks of the package, with the exceptions CANN's package
raises for them: TypeError for a value of the wrong type, ValueError for
an integer out of its C type's range.  Checks of meaning (a range, an
empty list) raise LLMException with LLM_PARAM_INVALID (status.py)."""

_LIMITS = {
    "uint8": (0, 2 ** 8 - 1),
    "uint16": (0, 2 ** 16 - 1),
    "int32": (-2 ** 31, 2 ** 31 - 1),
    "uint32": (0, 2 ** 32 - 1),
    "int64": (-2 ** 63, 2 ** 63 - 1),
    "uint64": (0, 2 ** 64 - 1),
}


def _names(types):
    return "/".join(t.__name__ for t in types)


def check_type(name, value, types, inner=None, allow_none=True):
    """value is one of types (a type or a tuple); with inner, so is each
    element of it.  None passes when allow_none."""
    if value is None and allow_none:
        return
    if not isinstance(types, tuple):
        types = (types,)
    if not isinstance(value, types):
        raise TypeError(f"{name} must be {_names(types)}, "
                        f"not {type(value).__name__}")
    if inner is not None:
        if not isinstance(inner, tuple):
            inner = (inner,)
        for v in value:
            if not isinstance(v, inner):
                raise TypeError(f"each element of {name} must be "
                                f"{_names(inner)}, not {type(v).__name__}")


def check_int(name, value, ctype):
    """value is an int within the C type ctype ("uint32", ...)."""
    check_type(name, value, int, allow_none=False)
    low, high = _LIMITS[ctype]
    if not low <= value <= high:
        raise ValueError(f"{name} = {value} is out of range for {ctype} "
                         f"[{low}, {high}]")


def check_ints(name, values, ctype):
    for v in values:
        check_int(name, v, ctype)


def check_str_dict(name, value):
    """A dict of str to str, as the options are."""
    check_type(name, value, dict, allow_none=False)
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"{name} maps str to str, not "
                            f"{type(k).__name__} to {type(v).__name__}")
