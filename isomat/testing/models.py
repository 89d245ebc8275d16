"""Small reference torch models for whole-network tests, benchmarks and notebooks.

The architectures zhu2025 §6 trains (a LeNet-style CNN), a ResNet ``BasicBlock`` stack with
batch norm, and a U-Net-like encoder-decoder with upsampling and skip concatenations -- written
as the torch community writes them (``forward`` composing modules and functional calls), so that
:func:`isomat.torch.from_model` is tested on real code, not on models shaped to suit it.
Needs torch (the ``torch`` extra).
"""

from __future__ import annotations

from typing import Any

try:
    import torch
    import torch.nn.functional as F
    from torch import nn
except ImportError as exc:  # pragma: no cover - exercised with torch hidden
    raise ImportError("isomat.testing.models needs PyTorch: pip install 'isomat[torch]'") from exc

__all__ = ["LeNet5", "BasicBlock", "ResNetStack", "TinyUNet", "DigitsCNN", "VGGSmall"]


class LeNet5(nn.Module):
    """LeNet-5 (LeCun et al. 1998) on ``(1, 32, 32)``: conv 5x5 -> 6, pool, conv 5x5 -> 16,
    pool, 120, 84, ``n_classes``. ``pool="avg"`` (the original subsampling) or ``"max"``;
    ``act`` any activation module class (``nn.ReLU``, ``nn.Tanh``)."""

    def __init__(self, n_classes: int = 10, pool: str = "avg", act: Any = nn.ReLU) -> None:
        super().__init__()
        Pool = nn.AvgPool2d if pool == "avg" else nn.MaxPool2d
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5), act(), Pool(2),
            nn.Conv2d(6, 16, 5), act(), Pool(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), act(), nn.Linear(120, 84), act(), nn.Linear(84, n_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


class BasicBlock(nn.Module):
    """ResNet's ``BasicBlock`` (He et al. 2016): conv-BN-ReLU-conv-BN plus the identity (or a
    1x1 strided conv-BN projection), then ReLU -- torchvision's layout."""

    def __init__(self, c_in: int, c_out: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class ResNetStack(nn.Module):
    """A stem conv and ``BasicBlock`` stages (channel widths ``widths``, stride 2 between
    stages), global average pooling and a linear head: a small CIFAR ResNet."""

    def __init__(self, widths: tuple[int, ...] = (16, 32, 64), blocks_per_stage: int = 1, n_classes: int = 10,
                 c_in: int = 3) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(c_in, widths[0], 3, padding=1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        layers: list[nn.Module] = []
        c = widths[0]
        for i, w in enumerate(widths):
            for j in range(blocks_per_stage):
                layers.append(BasicBlock(c, w, stride=2 if (i > 0 and j == 0) else 1))
                c = w
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(self.pool(x), 1))


class TinyUNet(nn.Module):
    """A U-Net-like encoder-decoder (Ronneberger et al. 2015): two levels of conv-BN-ReLU and
    max pooling down, ``Upsample`` (bilinear or nearest) up, skip connections by ``torch.cat``."""

    def __init__(self, c_in: int = 1, c_out: int = 2, width: int = 4, up_mode: str = "bilinear",
                 align_corners: bool | None = False) -> None:
        super().__init__()

        def block(a: int, b: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(),
                                 nn.Conv2d(b, b, 3, padding=1), nn.ReLU())

        self.enc1 = block(c_in, width)
        self.enc2 = block(width, 2 * width)
        self.bottom = block(2 * width, 4 * width)
        self.pool = nn.MaxPool2d(2)
        kw = {} if up_mode == "nearest" else {"align_corners": align_corners}
        self.up = nn.Upsample(scale_factor=2, mode=up_mode, **kw)
        self.dec2 = block(4 * width + 2 * width, 2 * width)
        self.dec1 = block(2 * width + width, width)
        self.head = nn.Conv2d(width, c_out, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottom(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up(d2), e1], dim=1))
        return self.head(d1)


class DigitsCNN(nn.Module):
    """The small LeNet-like CNN of the zhu2025 §6 training notebook, on scikit-learn's 8x8
    digits: conv 3x3 (1 -> ``width``, padding 1), ReLU, 2x2 average pooling, conv 3x3
    (``width`` -> ``2 width``), ReLU, 2x2 max pooling, linear to 10 classes."""

    def __init__(self, width: int = 6) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, width, 3, padding=1)
        self.conv2 = nn.Conv2d(width, 2 * width, 3, padding=1)
        self.fc = nn.Linear(2 * width * 2 * 2, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


class VGGSmall(nn.Module):
    """A VGG-style classifier (Simonyan and Zisserman 2015) on ``(3, 32, 32)``: two stages of two
    conv 3x3 (padding 1) - batch norm - ReLU blocks, each stage ending in 2x2 max pooling
    (widths ``widths``), then linear - ReLU - dropout - linear to ``n_classes``. ReLUs in place,
    as torchvision's VGG writes them."""

    def __init__(self, widths: tuple[int, int] = (16, 32), n_classes: int = 10, hidden: int = 64) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        c = 3
        for w in widths:
            for _ in range(2):
                layers += [nn.Conv2d(c, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(inplace=True)]
                c = w
            layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers)
        side = 32 // 2 ** len(widths)
        self.classifier = nn.Sequential(nn.Linear(c * side * side, hidden), nn.ReLU(inplace=True), nn.Dropout(0.5),
                                        nn.Linear(hidden, n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)
