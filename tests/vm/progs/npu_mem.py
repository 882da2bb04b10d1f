# SPDX-License-Identifier: LGPL-2.1-or-later
"""Device and host memory for the Python tests, as torch_npu gives CANN's
programs their tensors: aclrtSetDevice, aclrtMalloc and aclrtMemcpy of
libascendcl.so through ctypes, and page-aligned host buffers."""

import ctypes
import mmap

_H2D, _D2H = 1, 2	# aclrtMemcpyKind: HOST_TO_DEVICE, DEVICE_TO_HOST


class AclError(RuntimeError):
    pass


class Acl:
    """libascendcl.so's memory calls (or those of a library with its
    symbols, such as the unit tests' fake stack)."""

    def __init__(self, lib="libascendcl.so"):
        self._lib = ctypes.CDLL(lib)
        self._lib.aclrtSetDevice.argtypes = [ctypes.c_int32]
        self._lib.aclrtMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.c_size_t, ctypes.c_int]
        self._lib.aclrtFree.argtypes = [ctypes.c_void_p]
        self._lib.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                          ctypes.c_void_p, ctypes.c_size_t,
                                          ctypes.c_int]
        for f in ("aclrtSetDevice", "aclrtMalloc", "aclrtFree", "aclrtMemcpy"):
            getattr(self._lib, f).restype = ctypes.c_int

    def _check(self, ret, what):
        if ret != 0:
            raise AclError(f"{what}: ACL error {ret}")

    def set_device(self, device):
        self._check(self._lib.aclrtSetDevice(device), f"aclrtSetDevice({device})")

    def malloc(self, size):
        p = ctypes.c_void_p()
        self._check(self._lib.aclrtMalloc(ctypes.byref(p), size, 0),
                    f"aclrtMalloc({size})")
        return p.value

    def free(self, addr):
        self._check(self._lib.aclrtFree(addr), "aclrtFree")

    def write(self, addr, data):
        """data (bytes) into device memory at addr."""
        buf = ctypes.create_string_buffer(data, len(data))
        self._check(self._lib.aclrtMemcpy(addr, len(data), buf, len(data), _H2D),
                    "aclrtMemcpy to the device")

    def read(self, addr, size):
        """size bytes of device memory at addr."""
        buf = ctypes.create_string_buffer(size)
        self._check(self._lib.aclrtMemcpy(buf, size, addr, size, _D2H),
                    "aclrtMemcpy from the device")
        return buf.raw


class HostBuffer:
    """size bytes of page-aligned host memory: .addr, .read(), .write()."""

    def __init__(self, size):
        self.size = size
        self._map = mmap.mmap(-1, size)
        self._c = ctypes.c_char.from_buffer(self._map)
        self.addr = ctypes.addressof(self._c)

    def write(self, data, offset=0):
        self._map[offset:offset + len(data)] = data

    def read(self, size=None, offset=0):
        end = self.size if size is None else offset + size
        return bytes(self._map[offset:end])

    def close(self):
        del self._c
        self._map.close()


def pattern(seed, size):
    """size bytes that differ with seed, repeating every 251 bytes (a
    prime: no block of a power-of-two size repeats another), made fast
    enough for megabytes in a VM."""
    period = bytes((seed * 131 + i * 7 + (i * i >> 3)) & 0xFF
                   for i in range(251))
    return (period * (size // 251 + 1))[:size]
