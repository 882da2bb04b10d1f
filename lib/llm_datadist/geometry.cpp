// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shape of a cache in bytes, and which tensors a transfer moves.
 *
 * A registered cache is num_tensors tensors of one shape; shape[0] counts
 * its batches, or its blocks when it is used block-wise, so a batch (or
 * block) of tensor t is stride = tensor bytes / shape[0] bytes at
 * addrs[t] + index * stride.  Layers are tensor_num_per_layer consecutive
 * tensors (K and V by default).
 */
#include "impl.h"

namespace llm_datadist {
namespace detail {
namespace {

/* Bits of one element, as metadef sizes them; 0: no fixed size. */
unsigned int ElementBits(DataType t)
{
	switch (t) {
	case ge::DT_UINT1:
		return 1;
	case ge::DT_INT2:
	case ge::DT_UINT2:
		return 2;
	case ge::DT_INT4:
	case ge::DT_FLOAT4_E2M1:
	case ge::DT_FLOAT4_E1M2:
	case ge::DT_HIFLOAT4:
		return 4;
	case ge::DT_FLOAT6_E3M2:
	case ge::DT_FLOAT6_E2M3:
		return 6;
	case ge::DT_INT8:
	case ge::DT_UINT8:
	case ge::DT_BOOL:
	case ge::DT_DUAL_SUB_INT8:
	case ge::DT_DUAL_SUB_UINT8:
	case ge::DT_QINT8:
	case ge::DT_QUINT8:
	case ge::DT_HIFLOAT8:
	case ge::DT_FLOAT8_E5M2:
	case ge::DT_FLOAT8_E4M3FN:
	case ge::DT_FLOAT8_E8M0:
		return 8;
	case ge::DT_FLOAT16:
	case ge::DT_BF16:
	case ge::DT_INT16:
	case ge::DT_UINT16:
	case ge::DT_QINT16:
	case ge::DT_QUINT16:
		return 16;
	case ge::DT_FLOAT:
	case ge::DT_INT32:
	case ge::DT_UINT32:
	case ge::DT_QINT32:
	case ge::DT_COMPLEX32:
		return 32;
	case ge::DT_DUAL:		/* a float and an int8 */
		return 40;
	case ge::DT_INT64:
	case ge::DT_UINT64:
	case ge::DT_DOUBLE:
	case ge::DT_COMPLEX64:
	case ge::DT_VARIANT:
		return 64;
	case ge::DT_COMPLEX128:
		return 128;
	default:	/* STRING, STRING_REF, RESOURCE, UNDEFINED */
		return 0;
	}
}

}  // namespace

Status TensorBytes(const CacheDesc &desc, uint64_t &bytes)
{
	unsigned int bits = ElementBits(desc.data_type);
	uint64_t n = 1;

	if (!bits) {
		Err("RegisterKvCache: data type %d has no fixed size",
		    static_cast<int>(desc.data_type));
		return LLM_PARAM_INVALID;
	}
	if (desc.shape.empty()) {
		Err("RegisterKvCache: the shape is empty");
		return LLM_PARAM_INVALID;
	}
	for (int64_t d : desc.shape) {
		if (d <= 0 || static_cast<uint64_t>(d) > (UINT64_MAX >> 8) / n) {
			Err("RegisterKvCache: a dimension of %lld (each must be above 0, the tensor below 2^56 elements)",
			    static_cast<long long>(d));
			return LLM_PARAM_INVALID;
		}
		n *= static_cast<uint64_t>(d);
	}
	if ((n * bits) % 8) {
		Err("RegisterKvCache: %llu elements of %u bits are not whole bytes",
		    static_cast<unsigned long long>(n), bits);
		return LLM_PARAM_INVALID;
	}
	bytes = n * bits / 8;
	if (bytes % static_cast<uint64_t>(desc.shape[0])) {
		Err("RegisterKvCache: %llu bytes do not split into %lld batches",
		    static_cast<unsigned long long>(bytes),
		    static_cast<long long>(desc.shape[0]));
		return LLM_PARAM_INVALID;
	}
	return LLM_SUCCESS;
}

namespace {

bool RangeOk(const std::pair<int32_t, int32_t> &r)
{
	return r.first >= -1 && r.second >= -1 && r.first <= r.second;
}

/* Layers of a cache of @n tensors; a part left over is a layer too. */
int32_t MaxLayer(uint32_t n, uint32_t per_layer)
{
	if (n < per_layer)
		return 0;
	return static_cast<int32_t>(n / per_layer) - (n % per_layer ? 0 : 1);
}

/* Layer @sl of the source to layer @dl of the destination. */
bool AddLayer(int64_t sl, int64_t dl, uint32_t per_layer, uint32_t n_src,
	      uint32_t n_dst, TensorPairs &pairs)
{
	for (uint32_t k = 0; k < per_layer; k++) {
		uint64_t s = static_cast<uint64_t>(sl) * per_layer + k;
		uint64_t d = static_cast<uint64_t>(dl) * per_layer + k;

		if (s >= n_src)
			break;		/* the last layer may be short */
		if (d >= n_dst)
			return false;
		pairs.emplace_back(static_cast<uint32_t>(s),
				   static_cast<uint32_t>(d));
	}
	return true;
}

}  // namespace

Status SelectTensors(const KvCacheExtParam &p, uint32_t n_src,
		     uint32_t n_dst, bool push, TensorPairs &pairs)
{
	const auto &sr = p.src_layer_range, &dr = p.dst_layer_range;
	uint32_t per = p.tensor_num_per_layer;

	pairs.clear();
	if (!RangeOk(sr) || !RangeOk(dr) || !per) {
		Err("layer ranges [%d,%d] and [%d,%d] with %u tensors per layer: ranges must be -1 or above, first <= second, and a layer at least one tensor",
		    sr.first, sr.second, dr.first, dr.second, per);
		return LLM_PARAM_INVALID;
	}
	if (static_cast<int64_t>(sr.second) - sr.first !=
	    static_cast<int64_t>(dr.second) - dr.first) {
		Err("layer ranges [%d,%d] and [%d,%d] differ in length",
		    sr.first, sr.second, dr.first, dr.second);
		return LLM_PARAM_INVALID;
	}
	if (!push && (sr.first < 0 || dr.first < 0)) {
		/* A pull without both ranges: every tensor to its namesake. */
		if (n_src != n_dst) {
			Err("the caches have %u and %u tensors: give layer ranges",
			    n_src, n_dst);
			return LLM_PARAM_INVALID;
		}
		for (uint32_t t = 0; t < n_src; t++)
			pairs.emplace_back(t, t);
		return LLM_SUCCESS;
	}
	int64_t first = sr.first, last = sr.second, dst = dr.first;

	if (first < 0) {
		/* A push of {-1, -1}: every layer of the source, from 0. */
		first = 0;
		dst = 0;
		last = MaxLayer(n_src, per);
	}
	if (static_cast<uint64_t>(first) * per >= n_src) {
		Err("layer %lld of %u tensors per layer is past the source's %u tensors",
		    static_cast<long long>(first), per, n_src);
		return LLM_PARAM_INVALID;
	}
	for (int64_t l = first; l <= last; l++, dst++) {
		if (static_cast<uint64_t>(l) * per >= n_src ||
		    !AddLayer(l, dst, per, n_src, n_dst, pairs)) {
			Err("layers [%d,%d] -> [%d,%d] of %u tensors each do not fit caches of %u and %u tensors",
			    sr.first, sr.second, dr.first, dr.second, per,
			    n_src, n_dst);
			return LLM_PARAM_INVALID;
		}
	}
	return LLM_SUCCESS;
}

}  // namespace detail
}  // namespace llm_datadist
