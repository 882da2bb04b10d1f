# The hostile-user programs of tests/vm/cases/adversary.sh.
PROGS	+= itest_adversary
# this file is included before the Makefile's first rule: keep "all" the default
.DEFAULT_GOAL := all

$(OUT)/itest_adversary: $(OBJ)/itest_adversary.o $(OBJ)/memtest.o
	@mkdir -p $(OUT)
	$(CC) -o $@ $^
