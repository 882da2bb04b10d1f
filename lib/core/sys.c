// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one place lib/core enters the kernel through ioctl(2), so that unit
 * tests can put a fake kernel there and see the exact bytes the module
 * would see, without a module and without LD_PRELOAD.
 */
#include <sys/ioctl.h>

#include "core.h"

#ifdef MEMREG_TESTING
memreg__ioctl_fn memreg__test_ioctl;
#endif

int memreg__ioctl(int fd, unsigned long request, void *arg)
{
#ifdef MEMREG_TESTING
	if (memreg__test_ioctl)
		return memreg__test_ioctl(fd, request, arg);
#endif
	/*
	 * No retry on EINTR: the module returns it only for a fatal signal,
	 * and the caller wants to know that the call did not happen.
	 */
	return ioctl(fd, request, arg);
}
