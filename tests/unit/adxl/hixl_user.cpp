// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * <hixl/hixl.h> used the way CANN's hixl examples use hixl::Hixl: built
 * with -std=c++11 -Wall -Wextra -Werror, linked with -lcann_hixl, run without
 * the module.  The method signatures are pinned by member pointers of the
 * reference's types.  Prints "ok"/"not ok" lines.  The C functions behind
 * the async connect and the batch status move data between two engines in
 * test_engine.c, on the fake module.
 */
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hixl/hixl.h"

using namespace hixl;

static int failed;

static void check(bool cond, const char *what)
{
	std::printf("%s - hixl C++: %s\n", cond ? "ok" : "not ok", what);
	if (!cond)
		failed++;
}

/* The reference's signatures, default arguments aside. */
static void signatures()
{
	Status (Hixl::*init)(const AscendString &,
			     const std::map<AscendString, AscendString> &) =
		&Hixl::Initialize;
	void (Hixl::*fin)() = &Hixl::Finalize;
	Status (Hixl::*reg)(const MemDesc &, MemType, MemHandle &) =
		&Hixl::RegisterMem;
	Status (Hixl::*dereg)(MemHandle) = &Hixl::DeregisterMem;
	Status (Hixl::*conn)(const AscendString &, int32_t) = &Hixl::Connect;
	Status (Hixl::*disc)(const AscendString &, int32_t) = &Hixl::Disconnect;
	Status (Hixl::*conn_a)(const AscendString &, int32_t) =
		&Hixl::ConnectAsync;
	Status (Hixl::*disc_a)(const AscendString &, int32_t) =
		&Hixl::DisconnectAsync;
	Status (Hixl::*st1)(const AscendString &, AsyncConnectStatus &) =
		&Hixl::GetAsyncConnectStatus;
	Status (Hixl::*st_all)(std::map<AscendString, AsyncConnectStatus> &) =
		&Hixl::GetAsyncConnectStatus;
	Status (Hixl::*xs)(const AscendString &, TransferOp,
			   const std::vector<TransferOpDesc> &, int32_t) =
		&Hixl::TransferSync;
	Status (Hixl::*xa)(const AscendString &, TransferOp,
			   const std::vector<TransferOpDesc> &,
			   const TransferArgs &, TransferReq &) =
		&Hixl::TransferAsync;
	Status (Hixl::*ts1)(const TransferReq &, TransferStatus &) =
		&Hixl::GetTransferStatus;
	Status (Hixl::*ts_all)(const GetTransferStatusArgs &,
			       std::vector<TransferResult> &) =
		&Hixl::GetTransferStatus;
	Status (Hixl::*sn)(const AscendString &, const NotifyDesc &, int32_t) =
		&Hixl::SendNotify;
	Status (Hixl::*gn)(std::vector<NotifyDesc> &) = &Hixl::GetNotifies;
	Status (*cap)(FeatureType, int32_t &) = &Hixl::GetCapability;

	check(init && fin && reg && dereg && conn && disc && conn_a && disc_a &&
	      st1 && st_all && xs && xa && ts1 && ts_all && sn && gn && cap,
	      "every method has the reference's signature");
}

int main()
{
	std::map<AscendString, AscendString> options;

	signatures();
	options[OPTION_BUFFER_POOL] = "0:0";
	options[OPTION_RDMA_TRAFFIC_CLASS] = "132";
	options[OPTION_RDMA_SERVICE_LEVEL] = "4";
	options[OPTION_AUTO_CONNECT] = "0";
	options[OPTION_ENABLE_USE_FABRIC_MEM] = "0";
	options[OPTION_GLOBAL_RESOURCE_CONFIG] =
		R"({"comm_resource_config.protocol_desc": ["hccs:device"]})";
	options[OPTION_LOCAL_COMM_RES] = "{}";
	check(std::strcmp(OPTION_BUFFER_POOL, "BufferPool") == 0 &&
	      std::strcmp(OPTION_LOCAL_COMM_RES, "LocalCommRes") == 0,
	      "option keys have no adxl. prefix");

	check(SUCCESS == 0 && PARAM_INVALID == 103900U && TIMEOUT == 103901U &&
	      NOT_CONNECTED == 103902U && ALREADY_CONNECTED == 103903U &&
	      NOTIFY_FAILED == 103904U && UNSUPPORTED == 103905U &&
	      RESOURCE_EXHAUSTED == 203900U && FAILED == 503900U,
	      "Status values are CANN's");
	check(MEM_DEVICE == 0 && MEM_HOST == 1 && READ == 0 && WRITE == 1 &&
	      AUTO_CONNECT == 0 && CLIENT_SERVER_COMM == 1,
	      "MemType, TransferOp and FeatureType values are CANN's");
	check(static_cast<int>(AsyncConnectStatus::NOT_CONNECT) == 0 &&
	      static_cast<int>(AsyncConnectStatus::CONNECT_PENDING) == 1 &&
	      static_cast<int>(AsyncConnectStatus::CONNECTING) == 2 &&
	      static_cast<int>(AsyncConnectStatus::CONNECTED) == 3 &&
	      static_cast<int>(AsyncConnectStatus::CONNECT_FAILED) == 4 &&
	      static_cast<int>(AsyncConnectStatus::DISCONNECT_PENDING) == 5 &&
	      static_cast<int>(AsyncConnectStatus::DISCONNECTING) == 6,
	      "AsyncConnectStatus values are CANN's");
	check(sizeof(TransferArgs) == 128 && sizeof(GetTransferStatusArgs) == 128 &&
	      sizeof(TransferResult) == 128 &&
	      sizeof(MemDesc) == sizeof(uintptr_t) + sizeof(size_t) + 128,
	      "TransferArgs, GetTransferStatusArgs, TransferResult are 128 bytes");
	{
		GetTransferStatusArgs a;
		TransferResult r;
		TransferArgs t;

		check(a.max_query_count == UINT32_MAX && !a.skip_waiting &&
		      !r.req && !r.user_data &&
		      r.status == TransferStatus::WAITING && !t.user_data,
		      "defaults of the argument structs");
	}

	{
		Hixl engine;
		AsyncConnectStatus cs = AsyncConnectStatus::CONNECTED;
		std::map<AscendString, AsyncConnectStatus> all;
		std::vector<TransferResult> results(3);
		GetTransferStatusArgs args;

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
		check(engine.DeregisterMem(nullptr) == FAILED,
		      "DeregisterMem(nullptr) before Initialize is FAILED (hixl: before any argument)");
		/* hixl: before Initialize, FAILED before any argument. */
		check(engine.Connect("127.0.0.1:26001", 0) == FAILED,
		      "Connect (timeout 0) before Initialize is FAILED");
		check(engine.ConnectAsync("127.0.0.1:26001", 0) == FAILED,
		      "ConnectAsync (timeout 0) before Initialize is FAILED");
		check(engine.ConnectAsync("127.0.0.1:26001") == FAILED,
		      "ConnectAsync before Initialize is FAILED");
		check(engine.DisconnectAsync("127.0.0.1:26001") == FAILED,
		      "DisconnectAsync before Initialize is FAILED");
		check(engine.GetAsyncConnectStatus("127.0.0.1:26001", cs) ==
			      FAILED,
		      "GetAsyncConnectStatus before Initialize is FAILED");
		all["x"] = AsyncConnectStatus::CONNECTED;
		check(engine.GetAsyncConnectStatus(all) == FAILED && all.empty(),
		      "GetAsyncConnectStatus(map) before Initialize is FAILED");

		std::vector<TransferOpDesc> descs{ { 0x1000, 0, 64 } };
		check(engine.TransferSync("127.0.0.1:26001", READ, descs) ==
			      FAILED,
		      "TransferSync (remote address 0) before Initialize is FAILED");
		TransferReq req = nullptr;
		TransferArgs targs;
		targs.user_data = &engine;
		check(engine.TransferAsync("127.0.0.1:26001", WRITE, descs,
					   targs, req) == FAILED,
		      "TransferAsync before Initialize is FAILED");
		TransferStatus ts = TransferStatus::COMPLETED;
		check(engine.GetTransferStatus(nullptr, ts) == FAILED &&
			      ts == TransferStatus::FAILED,
		      "GetTransferStatus(NULL) is FAILED, status FAILED");
		ts = TransferStatus::COMPLETED;
		check(engine.GetTransferStatus(reinterpret_cast<TransferReq>(77),
					       ts) == FAILED &&
			      ts == TransferStatus::FAILED,
		      "GetTransferStatus before Initialize is FAILED, status FAILED");
		check(engine.GetTransferStatus(args, results) == FAILED &&
			      results.empty(),
		      "GetTransferStatus(args) before Initialize is FAILED");

		NotifyDesc notify;
		notify.name = AscendString(std::string(1025, 'n').c_str());
		notify.notify_msg = "msg";
		check(engine.SendNotify("127.0.0.1:26001", notify) == FAILED,
		      "SendNotify (a 1025-char name) before Initialize is FAILED");
		std::vector<NotifyDesc> got;
		check(engine.GetNotifies(got) == FAILED,
		      "GetNotifies before Initialize is FAILED");
		engine.Finalize();
	}

	int32_t v = -1;
	check(Hixl::GetCapability(AUTO_CONNECT, v) == SUCCESS &&
	      v == FEATURE_SUPPORTED, "GetCapability(AUTO_CONNECT)");
	v = -1;
	check(Hixl::GetCapability(CLIENT_SERVER_COMM, v) == SUCCESS &&
	      v == FEATURE_SUPPORTED, "GetCapability(CLIENT_SERVER_COMM)");
	check(Hixl::GetCapability(static_cast<FeatureType>(-1), v) ==
		      PARAM_INVALID,
	      "GetCapability(negative) is PARAM_INVALID");
	v = -1;
	check(Hixl::GetCapability(static_cast<FeatureType>(99), v) == SUCCESS &&
	      v == FEATURE_NOT_SUPPORTED, "GetCapability(unknown) is 0");
	return failed ? 1 : 0;
}
