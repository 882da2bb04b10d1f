# SPDX-License-Identifier: LGPL-2.1-or-later
"""LLMStatusCode, LLMException and Status: how the package reports what
LlmDataDist answered.  The values are those of <llm_datadist/
llm_error_codes.h> (ge's LLM error numbers), read from the extension so
that the two cannot drift apart."""

import enum
import logging

from llm_datadist import _datadist

log = logging.getLogger("llm_datadist")

_CODES = _datadist.STATUS


class LLMStatusCode(enum.IntEnum):
    LLM_SUCCESS = _CODES["SUCCESS"]
    LLM_FAILED = _CODES["FAILED"]
    LLM_PARAM_INVALID = _CODES["PARAM_INVALID"]
    LLM_WAIT_PROCESS_TIMEOUT = _CODES["WAIT_PROC_TIMEOUT"]
    LLM_KV_CACHE_NOT_EXIST = _CODES["KV_CACHE_NOT_EXIST"]
    LLM_REPEAT_REQUEST = _CODES["REPEAT_REQUEST"]
    LLM_REQUEST_ALREADY_COMPLETED = _CODES["REQUEST_ALREADY_COMPLETED"]
    LLM_ENGINE_FINALIZED = _CODES["ENGINE_FINALIZED"]
    LLM_NOT_YET_LINK = _CODES["NOT_YET_LINK"]
    LLM_ALREADY_LINK = _CODES["ALREADY_LINK"]
    LLM_LINK_FAILED = _CODES["LINK_FAILED"]
    LLM_UNLINK_FAILED = _CODES["UNLINK_FAILED"]
    LLM_NOTIFY_PROMPT_UNLINK_FAILED = _CODES["NOTIFY_PROMPT_UNLINK_FAILED"]
    LLM_CLUSTER_NUM_EXCEED_LIMIT = _CODES["CLUSTER_NUM_EXCEED_LIMIT"]
    LLM_PROCESSING_LINK = _CODES["PROCESSING_LINK"]
    LLM_DEVICE_OUT_OF_MEMORY = _CODES["DEVICE_OUT_OF_MEMORY"]
    LLM_PREFIX_ALREADY_EXIST = _CODES["PREFIX_ALREADY_EXIST"]
    LLM_PREFIX_NOT_EXIST = _CODES["PREFIX_NOT_EXIST"]
    # CANN's package spells it so; the second name is the documented one.
    LLM_SEQ_LENOVERLIMIT = _CODES["SEQ_LEN_OVER_LIMIT"]
    LLM_SEQ_LEN_OVER_LIMIT = _CODES["SEQ_LEN_OVER_LIMIT"]
    LLM_NO_FREE_BLOCK = _CODES["NO_FREE_BLOCK"]
    LLM_BLOCKS_OUT_OF_MEMORY = _CODES["BLOCKS_OUT_OF_MEMORY"]
    LLM_EXIST_LINK = _CODES["EXIST_LINK"]
    LLM_FEATURE_NOT_ENABLED = _CODES["FEATURE_NOT_ENABLED"]
    LLM_TIMEOUT = _CODES["TIMEOUT"]
    LLM_LINK_BUSY = _CODES["LINK_BUSY"]
    LLM_OUT_OF_MEMORY = _CODES["OUT_OF_MEMORY"]
    LLM_DEVICE_MEM_ERROR = _CODES["DEVICE_MEM_ERROR"]
    LLM_SUSPECT_REMOTE_ERROR = _CODES["SUSPECT_REMOTE_ERROR"]
    LLM_UNKNOWN_ERROR = -1

    def __str__(self):
        return f"LLMStatusCode.{self.name}"


def to_status(code):
    """The LLMStatusCode of a number LlmDataDist returned; a number it
    does not know is LLM_FAILED."""
    try:
        return LLMStatusCode(code)
    except ValueError:
        return LLMStatusCode.LLM_FAILED


class LLMException(RuntimeError):
    """What a call raises when LlmDataDist refuses or fails it; status_code
    says why."""

    def __init__(self, *args, status_code=LLMStatusCode.LLM_SUCCESS):
        super().__init__(*args)
        self._status_code = status_code

    @property
    def status_code(self):
        return self._status_code


class Status:
    """A status code and whether it is success."""

    def __init__(self, status):
        self._status_code = status

    def is_ok(self):
        return self._status_code == LLMStatusCode.LLM_SUCCESS

    @property
    def status_code(self):
        return self._status_code


def fail(message, code=LLMStatusCode.LLM_PARAM_INVALID):
    """Log and raise LLMException(code)."""
    log.error("%s", message)
    raise LLMException(message, status_code=code)


def expect(condition, message, code=LLMStatusCode.LLM_PARAM_INVALID):
    if not condition:
        fail(message, code)


def check_call(code, what):
    """Raise LLMException unless LlmDataDist's code is success."""
    if code != LLMStatusCode.LLM_SUCCESS:
        status = to_status(code)
        raise LLMException(f"{what} failed: {status} ({code:#x})",
                           status_code=status)


def not_enabled(what, why):
    fail(f"{what} is not supported here: {why}",
         LLMStatusCode.LLM_FEATURE_NOT_ENABLED)
