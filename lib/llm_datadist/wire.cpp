// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What one LlmDataDist asks another over the engine's query
 * (lib/adxl/query.h) and what it answers: who it is, and where a cache
 * is.  Big-endian like the rest of the control protocol; every decode
 * checks the length it is given before it reads.
 *
 *   ask:    u32 magic "LDD1", u32 what (Ask), i64 cache id
 *   who:    u64 cluster id, i32 role, u64 caches registered so far
 *   cache:  u32 placement, u32 tensors, u64 tensor bytes, u64 shape[0],
 *           u64 seq, then one u64 address per tensor
 */
#include "impl.h"

namespace llm_datadist {
namespace detail {
namespace {

constexpr uint32_t kMagic = 0x4C444431U;	/* "LDD1" */
/* RegisterKvCache takes at most 240 addresses (CANN's limit). */
constexpr uint32_t kMaxTensors = 240;

void Put32(std::vector<uint8_t> &b, uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		b.push_back(static_cast<uint8_t>(v >> s));
}

void Put64(std::vector<uint8_t> &b, uint64_t v)
{
	Put32(b, static_cast<uint32_t>(v >> 32));
	Put32(b, static_cast<uint32_t>(v));
}

struct Reader {
	const uint8_t *p;
	size_t len, off = 0;
	bool bad = false;

	Reader(const void *data, size_t n)
		: p(static_cast<const uint8_t *>(data)), len(n) {}

	uint32_t U32()
	{
		uint32_t v = 0;

		if (len - off < 4 || off > len) {
			bad = true;
			return 0;
		}
		for (int i = 0; i < 4; i++)
			v = (v << 8) | p[off++];
		return v;
	}

	uint64_t U64()
	{
		uint64_t hi = U32();

		return (hi << 32) | U32();
	}

	/* Everything read, nothing left over. */
	bool Done() const { return !bad && off == len; }
};

}  // namespace

std::vector<uint8_t> EncodeAsk(Ask what, int64_t cache_id)
{
	std::vector<uint8_t> b;

	Put32(b, kMagic);
	Put32(b, static_cast<uint32_t>(what));
	Put64(b, static_cast<uint64_t>(cache_id));
	return b;
}

bool DecodeAsk(const void *p, size_t len, Ask &what, int64_t &cache_id)
{
	Reader r(p, len);
	uint32_t magic = r.U32();

	what = static_cast<Ask>(r.U32());
	cache_id = static_cast<int64_t>(r.U64());
	return r.Done() && magic == kMagic &&
	       (what == Ask::kWho || what == Ask::kCache);
}

std::vector<uint8_t> EncodeWho(const Who &who)
{
	std::vector<uint8_t> b;

	Put64(b, who.cluster_id);
	Put32(b, static_cast<uint32_t>(who.role));
	Put64(b, who.reg_seq);
	return b;
}

bool DecodeWho(const void *p, size_t len, Who &who)
{
	Reader r(p, len);

	who.cluster_id = r.U64();
	who.role = static_cast<int32_t>(r.U32());
	who.reg_seq = r.U64();
	return r.Done();
}

std::vector<uint8_t> EncodeCache(const Geometry &g)
{
	std::vector<uint8_t> b;

	Put32(b, static_cast<uint32_t>(g.placement));
	Put32(b, g.num_tensors());
	Put64(b, g.tensor_bytes);
	Put64(b, g.dim0);
	Put64(b, g.seq);
	for (uint64_t a : g.addrs)
		Put64(b, a);
	return b;
}

bool DecodeCache(const void *p, size_t len, Geometry &g)
{
	Reader r(p, len);
	uint32_t placement = r.U32(), n = r.U32();

	g.tensor_bytes = r.U64();
	g.dim0 = r.U64();
	g.seq = r.U64();
	if (r.bad || !n || n > kMaxTensors || placement > 1 || !g.dim0 ||
	    g.tensor_bytes % g.dim0)
		return false;
	g.placement = static_cast<CachePlacement>(placement);
	g.addrs.resize(n);
	for (auto &a : g.addrs)
		a = r.U64();
	return r.Done();
}

}  // namespace detail
}  // namespace llm_datadist
