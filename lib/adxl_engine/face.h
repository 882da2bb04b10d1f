/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What adxl::AdxlEngine (adxl_engine.cpp) and hixl::Hixl (lib/hixl) share
 * on their way to the C API of <adxl/adxl.h>: the two classes are two
 * faces of one engine, with the same options, descriptors and notifies.
 * Internal: hidden, inline, in each library that carries a face.
 */
#ifndef MEMREG_ADXL_FACE_H
#define MEMREG_ADXL_FACE_H

#include <cstddef>
#include <cstdio>
#include <exception>
#include <map>
#include <vector>

#include <adxl/adxl.h>
#include <graph/ascend_string.h>

namespace memreg_face __attribute__((visibility("hidden"))) {

/*
 * Initialize's options as the C API takes them: pointers into @options,
 * which the caller holds for the call.
 */
inline std::vector<adxl_option>
Options(const std::map<ge::AscendString, ge::AscendString> &options)
{
	std::vector<adxl_option> v;

	v.reserve(options.size());
	for (const auto &kv : options)
		v.push_back(adxl_option{ kv.first.GetString(),
					 kv.second.GetString() });
	return v;
}

/*
 * A container the C API's callbacks append to.  The callbacks are called
 * from C, which cannot unwind: an exception (out of memory in the
 * container) stops here, and the call says FAILED once the C code is
 * done.
 */
template <class Container>
struct Sink {
	Container *out;
	bool failed;
};

/* adxl_notify_fn into a std::vector of adxl's or hixl's NotifyDesc. */
template <class Notify>
void AppendNotify(const char *name, size_t name_len, const char *msg,
		  size_t msg_len, void *arg) noexcept
{
	auto *s = static_cast<Sink<std::vector<Notify>> *>(arg);

	if (s->failed)
		return;
	try {
		s->out->push_back(Notify{ ge::AscendString(name, name_len),
					  ge::AscendString(msg, msg_len) });
	} catch (const std::exception &) {
		s->failed = true;
	}
}

/* GetNotifies of either face: @notifies gets every notify received. */
template <class Notify>
adxl_status_t GetNotifies(adxl_engine_t *engine,
			  std::vector<Notify> &notifies)
{
	Sink<std::vector<Notify>> s = { &notifies, false };
	adxl_status_t st = adxl_get_notifies(engine, AppendNotify<Notify>, &s);

	if (st == ADXL_SUCCESS && s.failed) {
		std::fprintf(stderr, "adxl: GetNotifies: out of memory, notifies lost\n");
		return ADXL_FAILED;
	}
	return st;
}

}  // namespace memreg_face

#endif /* MEMREG_ADXL_FACE_H */
