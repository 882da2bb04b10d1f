// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program of CANN's hixl::Hixl and ge::AscendString, declared as CANN
 * declares them (cann_decls.h) and linked the way Mooncake's TENT
 * transport links them: -lascendcl -lcann_hixl -lmetadef.  Built twice,
 * with -D_GLIBCXX_USE_CXX11_ABI=0 and =1, against memreg's libraries
 * built with the default, and run on the suite's fake module: two engines
 * connect asynchronously, move bytes, report through containers of the
 * program that the library fills (a std::map keyed by AscendString, a
 * std::vector of TransferResult, NotifyDescs).
 */
#include <cstring>
#include <map>
#include <vector>

#include "cann_decls.h"
#include "tap.h"

namespace {

constexpr size_t kLen = 256 << 10;

bool Check(bool ok, const char *what)
{
	return tap::Check("hixl", ok, what);
}

bool Start(hixl::Hixl &a, hixl::Hixl &b, std::string &an, std::string &bn)
{
	std::map<hixl::AscendString, hixl::AscendString> options;

	options["BufferPool"] = "4:8";
	/* hixl's batch GetTransferStatus needs its client/server engine. */
	options["LocalCommRes"] = "{\"version\": \"1.3\"}";
	for (int tries = 0; tries < 50; tries++) {
		unsigned int port = tap::Port();

		an = tap::Name(port);
		bn = tap::Name(port + 1);
		if (a.Initialize(an.c_str(), options) != hixl::SUCCESS)
			continue;
		if (b.Initialize(bn.c_str(), options) == hixl::SUCCESS)
			return true;
		a.Finalize();
	}
	return false;
}

void TestHixl()
{
	hixl::Hixl a, b;
	std::string an, bn;
	hixl::MemDesc m{};
	hixl::MemHandle ha = nullptr, hb = nullptr;
	std::vector<hixl::TransferOpDesc> d(1);
	std::vector<uint8_t> la(kLen), rb(kLen);
	std::map<hixl::AscendString, hixl::AsyncConnectStatus> peers;
	hixl::AsyncConnectStatus cs = hixl::AsyncConnectStatus::NOT_CONNECT;
	int32_t v = -1;

	Check(hixl::Hixl::GetCapability(hixl::CLIENT_SERVER_COMM, v) == hixl::SUCCESS,
	      "static GetCapability");
	if (!Check(Start(a, b, an, bn), "two engines Initialize"))
		return;
	m.addr = reinterpret_cast<uintptr_t>(la.data());
	m.len = kLen;
	Check(a.RegisterMem(m, hixl::MEM_HOST, ha) == hixl::SUCCESS, "RegisterMem (a)");
	m.addr = reinterpret_cast<uintptr_t>(rb.data());
	Check(b.RegisterMem(m, hixl::MEM_HOST, hb) == hixl::SUCCESS, "RegisterMem (b)");
	Check(a.DeregisterMem(nullptr) == hixl::PARAM_INVALID,
	      "DeregisterMem(NULL) is PARAM_INVALID (hixl's)");

	Check(a.ConnectAsync(bn.c_str(), 2000) == hixl::SUCCESS, "ConnectAsync a -> b");
	for (int i = 0; i < 300; i++) {
		if (a.GetAsyncConnectStatus(bn.c_str(), cs) != hixl::SUCCESS ||
		    cs == hixl::AsyncConnectStatus::CONNECTED ||
		    cs == hixl::AsyncConnectStatus::CONNECT_FAILED)
			break;
		usleep(10000);
	}
	Check(cs == hixl::AsyncConnectStatus::CONNECTED,
	      "GetAsyncConnectStatus(name): CONNECTED");
	Check(a.GetAsyncConnectStatus(peers) == hixl::SUCCESS && peers.size() == 1 &&
		      peers.begin()->first == bn.c_str() &&
		      peers.begin()->second == hixl::AsyncConnectStatus::CONNECTED,
	      "GetAsyncConnectStatus(map): the library keys the program's map by AscendString");

	for (size_t i = 0; i < kLen; i++)
		rb[i] = static_cast<uint8_t>(i * 5);
	d[0] = { reinterpret_cast<uintptr_t>(la.data()),
		 reinterpret_cast<uintptr_t>(rb.data()), kLen };
	Check(a.TransferSync(bn.c_str(), hixl::READ, d) == hixl::SUCCESS && la == rb,
	      "TransferSync READ: the bytes arrive");

	/* Two requests with user data, collected by the batch query. */
	hixl::TransferArgs args;
	hixl::TransferReq r1 = nullptr, r2 = nullptr;
	std::vector<hixl::TransferResult> results, all;
	int tag1 = 1, tag2 = 2;

	for (size_t i = 0; i < kLen; i++)
		la[i] = static_cast<uint8_t>(i * 11);
	d[0].len = kLen / 2;
	args.user_data = &tag1;
	Check(a.TransferAsync(bn.c_str(), hixl::WRITE, d, args, r1) == hixl::SUCCESS,
	      "TransferAsync WRITE, first half");
	d[0].local_addr += kLen / 2;
	d[0].remote_addr += kLen / 2;
	args.user_data = &tag2;
	Check(a.TransferAsync(bn.c_str(), hixl::WRITE, d, args, r2) == hixl::SUCCESS,
	      "TransferAsync WRITE, second half");
	hixl::GetTransferStatusArgs q;

	q.skip_waiting = true;
	for (int i = 0; i < 300 && all.size() < 2; i++) {
		if (a.GetTransferStatus(q, results) != hixl::SUCCESS)
			break;
		all.insert(all.end(), results.begin(), results.end());
		if (all.size() < 2)
			usleep(10000);
	}
	Check(all.size() == 2 && all[0].status == hixl::TransferStatus::COMPLETED &&
		      all[1].status == hixl::TransferStatus::COMPLETED &&
		      ((all[0].user_data == &tag1 && all[1].user_data == &tag2) ||
		       (all[0].user_data == &tag2 && all[1].user_data == &tag1)) &&
		      la == rb,
	      "GetTransferStatus(args, results): both COMPLETED with their user data, the bytes arrived");

	hixl::TransferStatus st;

	Check(a.GetTransferStatus(r1, st) == hixl::PARAM_INVALID &&
		      st == hixl::TransferStatus::FAILED,
	      "GetTransferStatus of a request reported done: PARAM_INVALID, FAILED (hixl's)");

	std::vector<hixl::NotifyDesc> got;

	Check(a.SendNotify(bn.c_str(), { "n", "done" }, 1000) == hixl::SUCCESS,
	      "SendNotify a -> b");
	for (int i = 0; i < 200 && got.empty(); i++) {
		if (b.GetNotifies(got) != hixl::SUCCESS)
			break;
		if (got.empty())
			usleep(10000);
	}
	Check(got.size() == 1 && got[0].name == "n" && got[0].notify_msg == "done",
	      "GetNotifies: b has it");

	Check(a.DisconnectAsync(bn.c_str(), 2000) == hixl::SUCCESS, "DisconnectAsync");
	for (int i = 0; i < 300; i++) {
		if (a.GetAsyncConnectStatus(bn.c_str(), cs) != hixl::SUCCESS ||
		    cs == hixl::AsyncConnectStatus::NOT_CONNECT)
			break;
		usleep(10000);
	}
	Check(cs == hixl::AsyncConnectStatus::NOT_CONNECT,
	      "GetAsyncConnectStatus after the disconnect: NOT_CONNECT");
	Check(a.DeregisterMem(ha) == hixl::SUCCESS && b.DeregisterMem(hb) == hixl::SUCCESS,
	      "DeregisterMem");
	a.Finalize();
	b.Finalize();
}

}  // namespace

int main()
{
	ge::AscendString s("hixl");

	Check(s.GetLength() == 4 && s == "hixl", "AscendString, as -lmetadef links it");
	TestHixl();
	return tap::Failed() ? 1 : 0;
}
