<?php
// tests/docs/blocks.php — reads the fenced code blocks of markdown files, with
// the hidden comments around them that tell the docs suite how to run them.
//
// A block is a fenced code block (``` or ~~~, indented or not, any info
// string). Around it, hidden when GitHub renders the page:
//   <!-- docs-test: skip (reason) -->   on the line before the opening fence:
//                                       the block is not run, for that reason;
//   <!-- docs-test: needs NAME -->      likewise: the block runs in framework
//                                       NAME's set-up (tests/docs/boot-NAME.php;
//                                       a block of integrations/NAME/README.md
//                                       needs none of this comment);
//   <!-- docs-check ... -->             right after the closing fence (blank
//                                       lines between allowed): PHP statements
//                                       run after the block, in its scope;
//   <!-- docs-expect ... -->            likewise: what the block prints
//                                       (compared after trimming each end).
// Several check/expect comments may follow one block. A check runs in the
// block's variables but not its file: a name the block imported with `use`
// is written in full there.

/** @return list<array{file:string,line:int,info:string,code:string,skip:?string,needs:?string,checks:list<string>,expect:?string}> */
function docs_blocks(string $file): array
{
    $lines = preg_split('/\r?\n/', file_get_contents($file));
    $n = count($lines);
    $blocks = [];
    for ($i = 0; $i < $n; $i++) {
        if (!preg_match('/^( {0,3}|\s*)(`{3,}|~{3,})\s*([^`]*)$/', $lines[$i], $m)) {
            continue;
        }
        [$indent, $fence, $info] = [strlen($m[1]), $m[2], trim($m[3])];
        $start = $i;
        $code = [];
        for ($i++; $i < $n; $i++) {
            if (preg_match('/^\s*' . preg_quote($fence[0], '/') . '{' . strlen($fence) . ',}\s*$/', $lines[$i])) {
                break;
            }
            $l = $lines[$i];
            $strip = min($indent, strlen($l) - strlen(ltrim($l, ' ')));
            $code[] = substr($l, $strip);
        }
        $skip = $needs = null;
        for ($j = $start - 1; $j >= 0 && trim($lines[$j]) === ''; $j--);
        if ($j >= 0 && preg_match('/<!--\s*docs-test:\s*skip\s*\((.+)\)\s*-->/', $lines[$j], $sm)) {
            $skip = $sm[1];
        } elseif ($j >= 0 && preg_match('/<!--\s*docs-test:\s*needs\s+([a-z]+)\s*-->/', $lines[$j], $sm)) {
            $needs = $sm[1];
        }
        $checks = [];
        $expect = null;
        $k = $i + 1;
        while (true) {
            for (; $k < $n && trim($lines[$k]) === ''; $k++);
            if ($k >= $n || !preg_match('/^\s*<!--\s*docs-(check|expect)\b(.*)$/', $lines[$k], $cm)) {
                break;
            }
            $body = [];
            $rest = $cm[2];
            while (true) {
                if (($p = strpos($rest, '-->')) !== false) {
                    $body[] = substr($rest, 0, $p);
                    break;
                }
                $body[] = $rest;
                if (++$k >= $n) {
                    break;
                }
                $rest = $lines[$k];
            }
            $text = trim(implode("\n", $body));
            if ($cm[1] === 'check') {
                $checks[] = $text;
            } else {
                $expect = $text;
            }
            $k++;
        }
        $blocks[] = ['file' => $file, 'line' => $start + 1, 'info' => $info, 'code' => implode("\n", $code),
                     'skip' => $skip, 'needs' => $needs, 'checks' => $checks, 'expect' => $expect];
    }
    return $blocks;
}

/** The block as a PHP file: "<?php" prepended when it does not start with it. */
function docs_php_source(string $code): string
{
    return preg_match('/^\s*<\?php\b/', $code) ? $code : "<?php\n" . $code;
}

/** Whether the block parses as PHP (php -l on it, with no ini and no extension). */
function docs_parses(string $php, string $code): bool
{
    $tmp = tempnam(sys_get_temp_dir(), 'docs-lint');
    file_put_contents($tmp, docs_php_source($code));
    exec(escapeshellarg($php) . ' -n -l ' . escapeshellarg($tmp) . ' 2>&1', $out, $rc);
    unlink($tmp);
    return $rc === 0;
}
