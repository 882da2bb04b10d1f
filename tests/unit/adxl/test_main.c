// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests.h"

int main(void)
{
	return test_name_group() + test_msg_group() + test_wire_group() +
	       test_api_group() + test_engine_group();
}
