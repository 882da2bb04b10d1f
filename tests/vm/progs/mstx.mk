# mstx test programs: built against include/mstx (the header-only mstx).
#   mstx_stress  linked with libmemreg: the tool is found in the process
#   mstx_torch   written like torch_npu's caller; attaches through
#                MSTX_INJECTION_PATH
#   mstx_plain   the plain headers and no tool: every call a no-op
#   mstx_fold    regions unregistered right after their register (the
#                library folds such pairs), linked with libmemreg
# --no-as-needed: the programs call no libmemreg function by name; the
# library must be loaded all the same, so that mstx finds its tool.
PROGS	+= mstx_stress mstx_torch mstx_plain mstx_fold
mstx_stress_LIBS	:= -L$(BUILD)/lib -Wl,--no-as-needed -lmemreg
mstx_fold_LIBS		:= -L$(BUILD)/lib -Wl,--no-as-needed -lmemreg
mstx_torch_LIBS		:= -ldl
mstx_plain_LIBS		:= -ldl
