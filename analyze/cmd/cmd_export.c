// SPDX-License-Identifier: MIT
#include "analyze/cmd/cmd.h"
int ana_cmd_export(int argc, char **argv) { (void)argc; (void)argv; return 2; }
