<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>Breadcrumbs</name>
    <message>
        <source>Go back to this level (Esc goes up one)</source>
        <translation>返回到这一层（Esc 返回上一层）</translation>
    </message>
</context>
<context>
    <name>Canvas</name>
    <message>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>Double-click to expand</source>
        <translation>双击以展开</translation>
    </message>
</context>
<context>
    <name>Docks</name>
    <message>
        <source>Properties</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Undo History</source>
        <translation>撤销历史</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Tensor Inspector</source>
        <translation>张量查看器</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>{path}: choose a .svg or .png file name</source>
        <translation>{path}：请选择 .svg 或 .png 文件名</translation>
    </message>
    <message>
        <source>{path}: could not be written</source>
        <translation>{path}：无法写入</translation>
    </message>
</context>
<context>
    <name>GraphPanel</name>
    <message>
        <source>Laying out {title} ({n} nodes)…</source>
        <translation>正在布局 {title}（{n} 个节点）…</translation>
    </message>
    <message>
        <source>Collapse {name}</source>
        <translation>折叠 {name}</translation>
    </message>
    <message>
        <source>Expand {name}</source>
        <translation>展开 {name}</translation>
    </message>
    <message>
        <source>Open {name}</source>
        <translation>打开 {name}</translation>
    </message>
    <message>
        <source>Open function body</source>
        <translation>打开函数体</translation>
    </message>
    <message>
        <source>Fit graph (F)</source>
        <translation>适应窗口 (F)</translation>
    </message>
    <message>
        <source>Expand all groups</source>
        <translation>展开所有分组</translation>
    </message>
    <message>
        <source>Collapse all groups</source>
        <translation>折叠所有分组</translation>
    </message>
    <message>
        <source>Back to enclosing graph (Esc)</source>
        <translation>返回上层图 (Esc)</translation>
    </message>
    <message>
        <source>function {name}</source>
        <translation>函数 {name}</translation>
    </message>
</context>
<context>
    <name>GraphScene</name>
    <message>
        <source>  ({n} nodes)</source>
        <translation>  （{n} 个节点）</translation>
    </message>
    <message>
        <source>Double-click the title to collapse</source>
        <translation>双击标题以折叠</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>System Language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>The language changes when onnxstudio is started again.</source>
        <translation>重新启动 onnxstudio 后语言才会更改。</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
</context>
<context>
    <name>LayoutJob</name>
    <message>
        <source>Layout failed</source>
        <translation>布局失败</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>ONNX models (*.onnx *.onnxtxt *.pb);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx *.onnxtxt *.pb);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Settings: </source>
        <translation>设置：</translation>
    </message>
    <message>
        <source>Open a model with Ctrl+O or drop a file here</source>
        <translation>按 Ctrl+O 打开模型，或将文件拖放到此处</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;Demo Model</source>
        <translation>打开示例模型(&amp;D)</translation>
    </message>
    <message>
        <source>Export &amp;Graph as SVG/PNG…</source>
        <translation>将整个图导出为 SVG/PNG(&amp;G)…</translation>
    </message>
    <message>
        <source>Export &amp;Visible Area as SVG/PNG…</source>
        <translation>将可见区域导出为 SVG/PNG(&amp;V)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Fit Graph</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Zoom to &amp;Selection</source>
        <translation>缩放到所选内容(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Expand All Groups</source>
        <translation>展开所有分组(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Collapse All Groups</source>
        <translation>折叠所有分组(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Go</source>
        <translation>转到(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Back to Enclosing Graph</source>
        <translation>返回上层图(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Model Properties</source>
        <translation>模型属性(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About onnxstudio</source>
        <translation>关于 onnxstudio(&amp;A)</translation>
    </message>
    <message>
        <source>Open ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <source>{path}: no such file</source>
        <translation>{path}：文件不存在</translation>
    </message>
    <message>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <source>Layout failed</source>
        <translation>布局失败</translation>
    </message>
    <message>
        <source> · layout: {engine} (cached)</source>
        <translation> · 布局：{engine}（缓存）</translation>
    </message>
    <message>
        <source> · layout: {engine}</source>
        <translation> · 布局：{engine}</translation>
    </message>
    <message>
        <source>the main graph</source>
        <translation>主图</translation>
    </message>
    <message>
        <source>{boxes} boxes, {edges} edges in {where}</source>
        <translation>{where}中有 {boxes} 个框、{edges} 条边</translation>
    </message>
    <message>
        <source>Clear Recent Files</source>
        <translation>清除最近文件</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>SVG image (*.svg);;PNG image (*.png)</source>
        <translation>SVG 图像 (*.svg);;PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <source>About onnxstudio</source>
        <translation>关于 onnxstudio</translation>
    </message>
    <message>
        <source>onnxstudio — explore, edit and step through ONNX models.</source>
        <translation>onnxstudio —— 浏览、编辑并逐步执行 ONNX 模型。</translation>
    </message>
</context>
<context>
    <name>Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>概览：单击或拖动以移动视图</translation>
    </message>
</context>
<context>
    <name>Navigation</name>
    <message>
        <source>main graph</source>
        <translation>主图</translation>
    </message>
    <message>
        <source>body</source>
        <translation>子图</translation>
    </message>
</context>
<context>
    <name>Search</name>
    <message>
        <source>node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>initializer</source>
        <translation>初始化器</translation>
    </message>
    <message>
        <source>function {name}</source>
        <translation>函数 {name}</translation>
    </message>
    <message>
        <source>main graph</source>
        <translation>主图</translation>
    </message>
    <message>
        <source>body</source>
        <translation>子图</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>Search nodes, ops, values, initializers…</source>
        <translation>搜索节点、算子、值、初始化器…</translation>
    </message>
    <message>
        <source>{text}
{kind} in {where}</source>
        <translation>{text}
{where}中的{kind}</translation>
    </message>
    <message>
        <source>{n}+ matches</source>
        <translation>{n}+ 个匹配</translation>
    </message>
    <message>
        <source>{n} matches</source>
        <translation>{n} 个匹配</translation>
    </message>
</context>
</TS>
