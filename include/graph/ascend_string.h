/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ge::AscendString as CANN's metadef declares it (graph/ascend_string.h),
 * reduced to what the ADXL API and its callers use, header-only: a string
 * that may hold any bytes, compared and hashed by content.
 */
#ifndef MEMREG_GRAPH_ASCEND_STRING_H
#define MEMREG_GRAPH_ASCEND_STRING_H

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ge {
class AscendString {
 public:
	AscendString() = default;
	~AscendString() = default;

	/* NULL is an empty string, as in metadef. */
	AscendString(const char *name)
		: name_(std::make_shared<std::string>(name ? name : "")) {}

	AscendString(const char *name, size_t length)
		: name_(std::make_shared<std::string>(
			  name ? std::string(name, length) : std::string())) {}

	const char *GetString() const
	{
		return name_ ? name_->c_str() : "";
	}

	size_t GetLength() const
	{
		return name_ ? name_->length() : 0;
	}

	size_t Hash() const
	{
		return std::hash<std::string>()(str());
	}

	bool operator<(const AscendString &d) const { return str() < d.str(); }
	bool operator>(const AscendString &d) const { return str() > d.str(); }
	bool operator<=(const AscendString &d) const { return str() <= d.str(); }
	bool operator>=(const AscendString &d) const { return str() >= d.str(); }
	bool operator==(const AscendString &d) const { return str() == d.str(); }
	bool operator!=(const AscendString &d) const { return str() != d.str(); }

 private:
	const std::string &str() const
	{
		static const std::string empty;

		return name_ ? *name_ : empty;
	}

	/* Shared, as in metadef: copies are cheap and never change it. */
	std::shared_ptr<std::string> name_;
};
}  // namespace ge

namespace std {
template <>
struct hash<ge::AscendString> {
	size_t operator()(const ge::AscendString &name) const
	{
		return name.Hash();
	}
};
}  // namespace std

#endif /* MEMREG_GRAPH_ASCEND_STRING_H */
