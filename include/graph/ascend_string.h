/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ge::AscendString as CANN's metadef declares it (graph/ascend_string.h):
 * a string that may hold any bytes, compared and hashed by content.  The
 * object is one std::shared_ptr<std::string>, and every method that
 * touches the string is out of line, in libmetadef.so (lib/metadef; also
 * in libcann_hixl.so and libllm_datadist.so, docs/adxl.md says why).
 *
 * Out of line is what lets a program built with either libstdc++ string
 * ABI (_GLIBCXX_USE_CXX11_ABI=0, as CANN's own builds and hixl's examples,
 * or 1, the default) use the library, built with the default: the
 * std::string is made, read and freed by the library alone, and the
 * program's inline code (the default constructor, copies, the destructor)
 * handles only the shared_ptr, whose layout both ABIs share.  Its deleter
 * is the library's, reached through the control block the library made.
 *
 * A null name_ (default constructed, or from NULL) is metadef's "no
 * string": GetString() gives "" and GetLength() 0, but it sorts before
 * every string, the empty one too, and equals only another null one.
 */
#ifndef MEMREG_GRAPH_ASCEND_STRING_H
#define MEMREG_GRAPH_ASCEND_STRING_H

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <graph/types.h>

namespace ge {
class AscendString {
 public:
	AscendString() = default;
	~AscendString() = default;

	/* NULL leaves the string null (see above). */
	AscendString(const char_t *const name);
	/* @length bytes of @name, NUL bytes included. */
	AscendString(const char_t *const name, size_t length);

	const char_t *GetString() const;
	size_t GetLength() const;
	/* Where @ascend_string first occurs; std::string::npos if either is null. */
	size_t Find(const AscendString &ascend_string) const;
	size_t Hash() const;

	bool operator<(const AscendString &d) const;
	bool operator>(const AscendString &d) const;
	bool operator<=(const AscendString &d) const;
	bool operator>=(const AscendString &d) const;
	bool operator==(const AscendString &d) const;
	bool operator!=(const AscendString &d) const;
	/* As strcmp(3): up to the first NUL of either. */
	bool operator==(const char_t *const d) const;
	bool operator!=(const char_t *const d) const;

 private:
	/* Shared: copies are cheap and never change it. */
	std::shared_ptr<std::string> name_;
};
}  // namespace ge

namespace std {
/* Inline, as metadef has it: Hash() is the library's. */
template <>
struct hash<ge::AscendString> {
	size_t operator()(const ge::AscendString &name) const
	{
		return name.Hash();
	}
};
}  // namespace std

#endif /* MEMREG_GRAPH_ASCEND_STRING_H */
