<?php

declare(strict_types=1);

namespace DistLock\Symfony\DependencyInjection;

use DistLock\Symfony\DataCollector\DistLockDataCollector;
use Symfony\Component\DependencyInjection\Compiler\CompilerPassInterface;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Definition;

/**
 * Registers the "Locks" data collector when the container has a profiler
 * (framework.profiler enabled), and nothing otherwise: without the profiler no
 * observer is registered and distlock builds no event (it costs nothing).
 */
final class ProfilerPass implements CompilerPassInterface
{
    public const COLLECTOR_ID = 'distlock.data_collector';

    public function process(ContainerBuilder $container): void
    {
        if (!$container->hasDefinition('profiler') || $container->hasDefinition(self::COLLECTOR_ID)) {
            return;
        }
        $container->setDefinition(self::COLLECTOR_ID, (new Definition(DistLockDataCollector::class))
            ->setPublic(false)
            ->addTag('data_collector', [
                'template' => '@DistLock/Collector/distlock.html.twig',
                'id' => 'distlock',
                // After the request, time and log collectors; before security, twig and the rest.
                'priority' => 250,
            ])
            ->addTag('kernel.event_subscriber'));
    }
}
