<?php
/*
 * distlock's release script, as the extension sends it: printed from
 * src/core/lease/dl_scripts.h by a small C program (the C preprocessor joins
 * the macro's pieces), and checked against DL_SCRIPT_RELEASE_SHA. Needs cc.
 */
declare(strict_types=1);

namespace Bench;

/** The release script's text and SHA1 as the extension has them (dl_scripts.h). @return array{string,string} */
function release_script(): array
{
    $dir = sys_get_temp_dir() . '/distlock-release-script-' . getmypid();
    @mkdir($dir);
    file_put_contents("$dir/s.c", "#include <stdio.h>\n#include \"dl_scripts.h\"\n"
        . "int main(int c, char **v) { fputs(c > 1 ? DL_SCRIPT_RELEASE_SHA : DL_SCRIPT_RELEASE, stdout); return 0; }\n");
    exec(sprintf('cc -I%s -o %s %s 2>&1', escapeshellarg(__DIR__ . '/../../src/core/lease'), escapeshellarg("$dir/s"),
        escapeshellarg("$dir/s.c")), $out, $rc);
    if ($rc !== 0) throw new \RuntimeException("cc failed:\n" . implode("\n", $out));
    $text = shell_exec(escapeshellarg("$dir/s"));
    $sha = shell_exec(escapeshellarg("$dir/s") . ' sha');
    exec('rm -rf ' . escapeshellarg($dir));
    if (sha1($text) !== $sha) throw new \RuntimeException('the script text does not hash to DL_SCRIPT_RELEASE_SHA');
    return [$text, $sha];
}

