<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Support;

use Psr\Log\AbstractLogger;

/** A PSR-3 logger that keeps its records (psr/log 1.1 to 3). */
final class MemoryLogger extends AbstractLogger
{
    /** @var list<array{level: string, message: string, context: array<string, mixed>}> */
    public array $records = [];

    public function log($level, $message, array $context = []): void
    {
        $this->records[] = ['level' => (string) $level, 'message' => (string) $message, 'context' => $context];
    }

    /** @return list<array{level: string, message: string, context: array<string, mixed>}> the records of $level */
    public function at(string $level): array
    {
        return array_values(array_filter($this->records, static fn (array $r) => $r['level'] === $level));
    }

    /** Every record as one string: the messages with their placeholders filled in, and the contexts. */
    public function dump(): string
    {
        return implode("\n", array_map(
            static fn (array $r) => $r['level'] . ' ' . strtr($r['message'], array_combine(
                array_map(static fn ($k) => '{' . $k . '}', array_keys($r['context'])),
                array_map(static fn ($v) => \is_scalar($v) ? (string) $v : json_encode($v), array_values($r['context'])),
            ) ?: []) . ' ' . json_encode($r['context']),
            $this->records,
        ));
    }
}
