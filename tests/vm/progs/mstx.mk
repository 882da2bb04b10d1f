# mstx test programs: built against include/mstx (the header-only mstx).
#   mstx_stress  linked with libmemreg: the tool is found in the process
#   mstx_torch   written like torch_npu's caller; attaches through
#                MSTX_INJECTION_PATH
#   mstx_plain   the plain headers and no tool: every call a no-op
#   mstx_fold    regions unregistered right after their register (the
#                library folds such pairs), linked with libmemreg
PROGS	+= mstx_stress mstx_torch mstx_plain mstx_fold
# this file is included before the Makefile's first rule: keep "all" the default
.DEFAULT_GOAL := all
MSTX_CFLAGS := -I$(TOP)/include -pthread

$(OBJ)/mstx_%.o: mstx_%.c $(wildcard $(TOP)/include/mstx/*.h $(TOP)/include/mstx/*/*.h)
	@mkdir -p $(OBJ)
	$(CC) $(CFLAGS) $(MSTX_CFLAGS) -c -o $@ $<

# --no-as-needed: the program calls nothing of libmemreg by name, yet
# needs it loaded for the mstx header to find InitInjectionMstx in it
$(OUT)/mstx_stress $(OUT)/mstx_fold: $(OUT)/%: $(OBJ)/%.o $(BUILD)/lib/libmemreg.so
	@mkdir -p $(OUT)
	$(CC) -o $@ $< -pthread -L$(BUILD)/lib -Wl,--no-as-needed -lmemreg

$(OUT)/mstx_torch $(OUT)/mstx_plain: $(OUT)/%: $(OBJ)/%.o
	@mkdir -p $(OUT)
	$(CC) -o $@ $< -pthread -ldl
