// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - show and change what processes registered with the memreg
 * kernel module, over generic netlink.  See memreg(8).
 */
#include <stdio.h>

#include "tool.h"

int main(int argc, char **argv)
{
	return memreg_run(argc, argv, stdout, stderr);
}
