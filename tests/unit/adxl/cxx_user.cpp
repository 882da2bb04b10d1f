// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The C++ headers used the way CANN programs use adxl::AdxlEngine (as in
 * Mooncake's AscendDirect transport and the hixl samples): built with
 * -std=c++11 -Wall -Wextra -Werror, linked with -lcann_hixl, run without the
 * module.  Prints "ok"/"not ok" lines.
 */
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "adxl/adxl_engine.h"

using namespace adxl;

static int failed;

static void check(bool cond, const char *what)
{
	std::printf("%s - adxl C++: %s\n", cond ? "ok" : "not ok", what);
	if (!cond)
		failed++;
}

int main()
{
	/* AscendString: content comparison, hashing, map keys. */
	ge::AscendString a("127.0.0.1:26000"), b(std::string("127.0.0.1:26000").c_str());
	std::map<AscendString, AscendString> options;
	std::unordered_map<AscendString, int> seen;

	check(a == b && !(a != b) && !(a < b) && a.GetLength() == 15 &&
	      std::strcmp(a.GetString(), "127.0.0.1:26000") == 0,
	      "AscendString compares by content");
	check(ge::AscendString("x\0y", 3).GetLength() == 3 &&
	      ge::AscendString(nullptr).GetLength() == 0 &&
	      ge::AscendString().GetString()[0] == '\0',
	      "AscendString: bytes, NULL and default");
	seen[a] = 1;
	check(seen.count(b) == 1, "std::hash<AscendString>");

	options[OPTION_BUFFER_POOL] = "4:8";
	options[OPTION_RDMA_TRAFFIC_CLASS] = "132";
	options[OPTION_RDMA_SERVICE_LEVEL] = "4";
	options[OPTION_AUTO_CONNECT] = "0";

	/* The status values CANN programs compare against. */
	check(SUCCESS == 0 && PARAM_INVALID == 103900U && TIMEOUT == 103901U &&
	      NOT_CONNECTED == 103902U && ALREADY_CONNECTED == 103903U &&
	      NOTIFY_FAILED == 103904U && UNSUPPORTED == 103905U &&
	      RESOURCE_EXHAUSTED == 203900U && FAILED == 503900U,
	      "Status values are CANN's");
	check(MEM_DEVICE == 0 && MEM_HOST == 1 && READ == 0 && WRITE == 1,
	      "MemType and TransferOp values are CANN's");
	check(sizeof(MemDesc) == sizeof(uintptr_t) + sizeof(size_t) + 128 &&
	      sizeof(TransferArgs) == 128 && sizeof(ShareableHandle) == 128,
	      "MemDesc, TransferArgs, ShareableHandle sizes");

	{
		AdxlEngine engine;

		/* No module here: Initialize fails after checking its input. */
		check(engine.Initialize("not-an-ip:1", options) == PARAM_INVALID,
		      "Initialize: bad name is PARAM_INVALID");
		check(engine.Initialize("127.0.0.1:26000", options) == FAILED,
		      "Initialize: no module is FAILED");

		MemDesc mem{};
		mem.addr = 0x1000;
		mem.len = 4096;
		MemHandle handle = nullptr;
		check(engine.RegisterMem(mem, MEM_HOST, handle) == FAILED,
		      "RegisterMem before Initialize is FAILED");
		/* hixl: before Initialize, FAILED before any argument. */
		check(engine.DeregisterMem(reinterpret_cast<MemHandle>(0x10)) ==
			      FAILED,
		      "DeregisterMem before Initialize is FAILED");
		check(engine.Connect("127.0.0.1:26001", 0) == FAILED,
		      "Connect (timeout 0) before Initialize is FAILED");
		check(engine.Disconnect("127.0.0.1:26001", -5) == FAILED,
		      "Disconnect before Initialize is FAILED");

		std::vector<TransferOpDesc> descs{ { 0x1000, 0, 64 } };
		check(engine.TransferSync("127.0.0.1:26001", READ, descs) ==
			      FAILED,
		      "TransferSync (remote address 0) before Initialize is FAILED");
		TransferReq req = nullptr;
		check(engine.TransferAsync("127.0.0.1:26001", WRITE, descs,
					   TransferArgs(), req) == FAILED,
		      "TransferAsync before Initialize is FAILED");
		TransferStatus ts = TransferStatus::COMPLETED;
		check(engine.GetTransferStatus(nullptr, ts) == FAILED,
		      "GetTransferStatus(NULL) is FAILED");

		NotifyDesc notify;
		notify.name = AscendString(std::string(1025, 'n').c_str());
		notify.notify_msg = "msg";
		check(engine.SendNotify("127.0.0.1:26001", notify) == FAILED,
		      "SendNotify (a 1025-char name) before Initialize is FAILED");
		engine.Finalize();
	}

	void *p = nullptr;
	check(AdxlEngine::MallocMem(MEM_HOST, 1 << 20, &p) == SUCCESS && p,
	      "MallocMem host");
	ShareableHandle sh;
	check(AdxlEngine::ExportToShareableHandle(p, sh) == UNSUPPORTED,
	      "ExportToShareableHandle is UNSUPPORTED");
	check(AdxlEngine::FreeMem(p) == SUCCESS, "FreeMem");
	check(AdxlEngine::MallocMem(MEM_DEVICE, 4096, &p) == PARAM_INVALID,
	      "MallocMem device is PARAM_INVALID (host memory only)");

	/* Downstream users probe for the static helpers this way. */
	Status (*cap)(FeatureType, int32_t &) = &AdxlEngine::GetCapability;
	int32_t v = -1;
	check(cap != nullptr && cap(AUTO_CONNECT, v) == SUCCESS &&
	      v == FEATURE_SUPPORTED, "GetCapability(AUTO_CONNECT)");
	check(AdxlEngine::GetCapability(static_cast<FeatureType>(-1), v) ==
		      PARAM_INVALID,
	      "GetCapability(negative) is PARAM_INVALID");
	return failed ? 1 : 0;
}
