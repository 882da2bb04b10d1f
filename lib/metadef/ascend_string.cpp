// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ge::AscendString's methods (<graph/ascend_string.h>), with metadef's
 * semantics: a null string is "" to GetString() and GetLength(), sorts
 * before every other string and equals only a null one.
 *
 * This is the only code that touches the std::string behind an
 * AscendString, so a program of either libstdc++ string ABI can hold
 * one (the header says why).  Nothing here throws: a program may be
 * built without exceptions, and a constructor that cannot allocate
 * leaves the string null, as metadef's does.
 *
 * The file is linked into libmetadef.so, CANN's home of the class, and
 * into libcann_hixl.so and libllm_datadist.so under the same version
 * node, so that a program linked with any of them finds it (lib/Makefile).
 */
#include <cstdio>
#include <cstring>
#include <exception>

/*
 * The class is exported (the version script names it) though the
 * library is built with -fvisibility=hidden; metadef's header carries
 * no visibility attribute, so ours does not either.
 */
#pragma GCC visibility push(default)
#include <graph/ascend_string.h>
#pragma GCC visibility pop

namespace ge {

namespace {
/*
 * A new std::string of @len bytes at @name, or null: out of memory (or a
 * length beyond max_size()) is said on stderr and leaves the string null.
 */
std::shared_ptr<std::string> MakeName(const char_t *name, size_t len)
{
	try {
		return std::make_shared<std::string>(name, len);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "metadef: AscendString of %zu bytes: %s\n",
			     len, e.what());
		return nullptr;
	}
}

/* Three-way order of two names, null first: <0, 0 or >0. */
int Compare(const std::shared_ptr<std::string> &a,
	    const std::shared_ptr<std::string> &b)
{
	if (!a || !b)
		return (a ? 1 : 0) - (b ? 1 : 0);
	return a->compare(*b);
}
}  // namespace

AscendString::AscendString(const char_t *const name)
{
	if (name)
		name_ = MakeName(name, std::strlen(name));
}

AscendString::AscendString(const char_t *const name, size_t length)
{
	if (name)
		name_ = MakeName(name, length);
}

const char_t *AscendString::GetString() const
{
	return name_ ? name_->c_str() : "";
}

size_t AscendString::GetLength() const
{
	return name_ ? name_->length() : 0;
}

size_t AscendString::Find(const AscendString &ascend_string) const
{
	if (!name_ || !ascend_string.name_)
		return std::string::npos;
	return name_->find(*ascend_string.name_);
}

/* A null string hashes as the empty one (they differ only in order). */
size_t AscendString::Hash() const
{
	return std::hash<std::string>()(name_ ? *name_ : std::string());
}

bool AscendString::operator<(const AscendString &d) const
{
	return Compare(name_, d.name_) < 0;
}

bool AscendString::operator>(const AscendString &d) const
{
	return Compare(name_, d.name_) > 0;
}

bool AscendString::operator<=(const AscendString &d) const
{
	return Compare(name_, d.name_) <= 0;
}

bool AscendString::operator>=(const AscendString &d) const
{
	return Compare(name_, d.name_) >= 0;
}

bool AscendString::operator==(const AscendString &d) const
{
	return Compare(name_, d.name_) == 0;
}

bool AscendString::operator!=(const AscendString &d) const
{
	return Compare(name_, d.name_) != 0;
}

bool AscendString::operator==(const char_t *const d) const
{
	if (!name_ || !d)
		return !name_ && !d;
	return std::strcmp(name_->c_str(), d) == 0;
}

bool AscendString::operator!=(const char_t *const d) const
{
	return !(*this == d);
}

}  // namespace ge
