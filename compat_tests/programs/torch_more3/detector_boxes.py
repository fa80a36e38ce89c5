"""Box utilities and a tiny detector head: box_area / pairwise IoU by broadcasting, generalized IoU, a greedy NMS
written with argsort and boolean masks, anchor matching by max IoU (max over dims, indices), target encoding as
(dx, dy, dw, dh) with log, smooth L1 (beta) + GIoU regression losses and BCE-with-logits objectness, and an SGD
training loop on synthetic images with one bright square each."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    return inter / union, union


def generalized_box_iou(boxes1, boxes2):
    iou, union = box_iou(boxes1, boxes2)
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    area = wh[:, :, 0] * wh[:, :, 1]
    return iou - (area - union) / area


def nms(boxes, scores, iou_threshold):
    order = scores.argsort(descending=True)
    keep = []
    suppressed = torch.zeros(len(boxes), dtype=torch.bool)
    iou, _ = box_iou(boxes, boxes)
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= iou[i] > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


def make_anchors(size=16, stride=4, scales=(4.0, 8.0)):
    centers = torch.arange(stride / 2, size, stride)
    cy, cx = torch.meshgrid(centers, centers, indexing="ij")
    anchors = []
    for s in scales:
        anchors.append(torch.stack([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], dim=-1).reshape(-1, 4))
    return torch.stack(anchors, dim=1).reshape(-1, 4)  # (cells * scales, 4) cell-major


def encode(gt, anchors):
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = anchors[:, 0] + aw / 2, anchors[:, 1] + ah / 2
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    gx, gy = gt[:, 0] + gw / 2, gt[:, 1] + gh / 2
    return torch.stack([(gx - ax) / aw, (gy - ay) / ah, torch.log(gw / aw), torch.log(gh / ah)], dim=1)


def decode(deltas, anchors):
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = anchors[:, 0] + aw / 2, anchors[:, 1] + ah / 2
    cx, cy = deltas[:, 0] * aw + ax, deltas[:, 1] * ah + ay
    w, h = deltas[:, 2].exp() * aw, deltas[:, 3].exp() * ah
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=1)


class Head(nn.Module):
    def __init__(self, num_anchors=2):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2,
                                      padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.obj = nn.Conv2d(16, num_anchors, 1)
        self.reg = nn.Conv2d(16, num_anchors * 4, 1)

    def forward(self, x):
        f = self.backbone(x)
        b = x.shape[0]
        obj = self.obj(f).permute(0, 2, 3, 1).reshape(b, -1)
        reg = self.reg(f).permute(0, 2, 3, 1).reshape(b, -1, 4)
        return obj, reg


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(7)
    n = 24
    xy = torch.randint(0, 9, (n, 2), generator=g).float()
    size = torch.randint(4, 8, (n, 1), generator=g).float()
    gt = torch.cat([xy, xy + size], dim=1)
    yy, xx = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")
    inside = ((xx >= gt[:, 0, None, None]) & (xx < gt[:, 2, None, None]) & (yy >= gt[:, 1, None, None])
              & (yy < gt[:, 3, None, None]))
    images = inside.float().unsqueeze(1) + 0.1 * torch.randn(n, 1, 16, 16, generator=g)
    anchors = make_anchors()
    out = []
    iou, _ = box_iou(gt[:4], anchors)
    out += iou.max(dim=1).values.tolist() + iou.argmax(dim=1).tolist()
    out += generalized_box_iou(gt[:3], gt[:3].flip(0)).flatten().tolist()
    model = Head()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _epoch in range(4):
        for i in range(0, n, 8):
            obj, reg = model(images[i:i + 8])
            boxes = gt[i:i + 8]
            ious, _ = box_iou(boxes, anchors)
            best_iou, best = ious.max(dim=1)
            targets = (ious >= 0.4).float()
            targets[torch.arange(len(boxes)), best] = 1.0
            obj_loss = F.binary_cross_entropy_with_logits(obj, targets)
            pred = reg[torch.arange(len(boxes)), best]
            deltas = encode(boxes, anchors[best])
            l1 = F.smooth_l1_loss(pred, deltas, beta=1 / 9)
            decoded = decode(pred, anchors[best])
            giou = 1 - torch.diag(generalized_box_iou(decoded, boxes)).mean()
            loss = obj_loss + l1 + 0.5 * giou
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.item(), obj_loss.item(), l1.item(), giou.item(), best_iou.mean().item()]
    with torch.no_grad():
        obj, reg = model(images[:2])
        for k in range(2):
            scores = obj[k].sigmoid()
            boxes = decode(reg[k], anchors)
            top = scores > 0.3
            keep = nms(boxes[top], scores[top], 0.3)
            out += [top.sum().item(), len(keep)]
            out += scores[top][keep].tolist()
    return out
