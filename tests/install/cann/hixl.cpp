// hixl::Hixl as CANN's hixl examples use it: -lcann_hixl, <hixl/hixl.h>.
#include <cstdio>
#include <map>
#include "hixl/hixl.h"

int main()
{
    int32_t value = 0;
    hixl::Status status = hixl::Hixl::GetCapability(hixl::CLIENT_SERVER_COMM, value);
    bool good = status == hixl::SUCCESS && value == hixl::FEATURE_SUPPORTED;
    std::printf("%s hixl::Hixl::GetCapability(CLIENT_SERVER_COMM) (status %d, value %d)\n",
                good ? "ok" : "FAIL", static_cast<int>(status), static_cast<int>(value));

    // No module here: Initialize checks its input, then says FAILED.
    hixl::Hixl engine;
    std::map<hixl::AscendString, hixl::AscendString> options;
    options[hixl::OPTION_BUFFER_POOL] = "0:0";
    status = engine.Initialize("127.0.0.1", options);
    std::printf("%s hixl::Hixl::Initialize without the module is FAILED (status %d)\n",
                status == hixl::FAILED ? "ok" : "FAIL", static_cast<int>(status));
    return good && status == hixl::FAILED ? 0 : 1;
}
