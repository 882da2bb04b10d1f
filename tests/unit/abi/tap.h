// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TAP lines of the ABI programs, each named after the string ABI it was
 * built with, and what they share: engine names on random ports (other
 * runs of make check may share the host's loopback).
 */
#ifndef ABI_TAP_H
#define ABI_TAP_H

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <unistd.h>

namespace tap {

#if _GLIBCXX_USE_CXX11_ABI
constexpr const char kAbi[] = "_GLIBCXX_USE_CXX11_ABI=1";
#else
constexpr const char kAbi[] = "_GLIBCXX_USE_CXX11_ABI=0";
#endif

inline int &Failed()
{
	static int failed;

	return failed;
}

/* One line: "ok - abi FACE (_GLIBCXX_USE_CXX11_ABI=N): WHAT". */
inline bool Check(const char *face, bool ok, const char *what)
{
	std::printf("%s - abi %s (%s): %s\n", ok ? "ok" : "not ok", face, kAbi,
		    what);
	std::fflush(stdout);
	Failed() += !ok;
	return ok;
}

/* A port for an engine to listen on, between 20000 and 59999. */
inline unsigned int Port()
{
	static bool seeded;

	if (!seeded) {
		std::srand(static_cast<unsigned int>(std::time(nullptr)) ^
			   static_cast<unsigned int>(getpid()));
		seeded = true;
	}
	return 20000U + static_cast<unsigned int>(std::rand()) % 40000U;
}

/*
 * "127.0.0.1:PORT", in the program's own std::string (of its ABI):
 * what a program hands the library is only ever its c_str().
 */
inline std::string Name(unsigned int port)
{
	return "127.0.0.1:" + std::to_string(port);
}

}  // namespace tap

#endif /* ABI_TAP_H */
