<?php
/* Which SAPI and distlock version serve this pool, and the worker's pid. */
echo PHP_SAPI, ' ', phpversion('distlock'), ' ', getmypid(), "\n";
